import { open } from 'node:fs/promises';
/** Flushes a file's data to the disk (after a rename, this makes the new content durable). */
export async function syncFile(path) {
    const fh = await open(path, 'r');
    try {
        await fh.datasync();
    }
    finally {
        await fh.close();
    }
}
/**
 * Flushes a directory so a file created or renamed in it survives a power loss. Some platforms
 * (Windows) cannot open directories; there the rename is as durable as the OS makes it.
 */
export async function syncDir(path) {
    let fh;
    try {
        fh = await open(path, 'r');
    }
    catch {
        return;
    }
    try {
        await fh.sync();
    }
    catch (error) {
        const code = error.code;
        if (code !== 'EISDIR' && code !== 'EINVAL' && code !== 'EPERM')
            throw error;
    }
    finally {
        await fh.close();
    }
}
//# sourceMappingURL=fsync-path.js.map