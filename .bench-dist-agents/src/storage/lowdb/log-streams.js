import { mkdir, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { LogFile } from './log-file.js';
import { decodeStreamFile, encodeStreamName, LOG_SUFFIX } from './stream-names.js';
/** The log half of the lowdb store: one `LogFile` per stream, opened lazily and cached. */
export function createLogStreams(options) {
    const { dir, fsync, onWarning, assertOpen } = options;
    let files = new Map();
    /** Streams found on disk at open, with their file size then (a stream with rows has a non-empty file). */
    let onDisk = new Map();
    /** The stream's file; undefined when it has none and `create` is false, so reads never create files. */
    function fileOf(stream, create) {
        assertOpen();
        const cached = files.get(stream);
        if (cached !== undefined)
            return cached;
        const file = join(dir, encodeStreamName(stream) + LOG_SUFFIX);
        if (!create && !onDisk.has(stream))
            return undefined;
        const opening = LogFile.open({ stream, file, fsync, onWarning });
        files.set(stream, opening);
        // A failed open (corrupt file) is not cached, so a later call reports the error again.
        opening.catch(() => files.get(stream) === opening && files.delete(stream));
        return opening;
    }
    const api = {
        async append(stream, build) {
            const log = await fileOf(stream, true);
            return (await log.append(build));
        },
        async head(stream) {
            return (await fileOf(stream, false))?.head();
        },
        async count(stream) {
            return (await fileOf(stream, false))?.count() ?? 0;
        },
        async get(stream, seq) {
            return (await (await fileOf(stream, false))?.get(seq));
        },
        async read(stream, query = {}) {
            return ((await (await fileOf(stream, false))?.read(query)) ?? []);
        },
        async streams(prefix = '') {
            assertOpen();
            const names = new Set([...onDisk.keys(), ...files.keys()].filter((name) => name.startsWith(prefix)));
            const listed = [];
            for (const name of names) {
                const log = await files.get(name)?.catch(() => undefined);
                const hasRows = log !== undefined ? log.count() > 0 : (onDisk.get(name) ?? 0) > 0;
                if (hasRows)
                    listed.push(name);
            }
            return listed.sort();
        },
    };
    return {
        api,
        async open() {
            await mkdir(dir, { recursive: true });
            const found = new Map();
            for (const entry of await readdir(dir)) {
                const stream = decodeStreamFile(entry);
                if (stream !== undefined)
                    found.set(stream, (await stat(join(dir, entry))).size);
            }
            onDisk = found;
        },
        async close() {
            const opened = [...files.values()];
            files = new Map();
            onDisk = new Map();
            await Promise.all(opened.map((opening) => opening.then((log) => log.close(), () => undefined)));
        },
    };
}
//# sourceMappingURL=log-streams.js.map