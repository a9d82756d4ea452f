import { mkdir, open, readFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * One process per data directory: lowdb files are rewritten whole and logs are appended through one
 * handle, so a second process on the same directory would lose writes. The lock file holds the owner's
 * pid; a lock whose process is gone (a crash) is taken over.
 */
/** The lock file's name inside the data directory; it holds the owner's pid. */
export const LOCK_FILE = '.lock';

export async function lockDataDir(dataDir: string): Promise<() => Promise<void>> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const file = join(dataDir, LOCK_FILE);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const handle = await open(file, 'wx', 0o600);
      await handle.writeFile(String(process.pid));
      await handle.close();
      return async () => {
        await unlink(file).catch(() => undefined);
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const pid = Number((await readFile(file, 'utf8').catch(() => '')).trim());
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid)) {
        throw new Error(
          `The data directory ${dataDir} is in use by process ${pid}; stop it, or give this process another CORE_DATA_DIR (or use DATABASE_URL to share one database)`,
          { cause: err },
        );
      }
      await unlink(file).catch(() => undefined);
    }
  }
  throw new Error(`Could not lock the data directory ${dataDir}`);
}

/** Whether a process with this pid exists (one we may not signal still counts). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
