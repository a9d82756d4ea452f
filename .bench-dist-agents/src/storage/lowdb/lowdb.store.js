import { join } from 'node:path';
import { createDocCollections } from './doc-collections.js';
import { createInFlight } from './in-flight.js';
import { createLogStreams } from './log-streams.js';
/**
 * The embedded store: small document collections as lowdb JSON files written atomically, and logs as
 * append-only JSON-lines files with an in-memory index and group commit. One process per `dataDir`.
 */
export function createLowdbStore(options) {
    const fsync = options.fsync ?? true;
    let state = 'closed';
    let opening;
    let closing;
    const assertOpen = () => {
        if (state !== 'open')
            throw new Error('the store is not open');
    };
    const docs = createDocCollections({ dir: join(options.dataDir, 'docs'), fsync, assertOpen });
    const logs = createLogStreams({ dir: join(options.dataDir, 'logs'), fsync, onWarning: options.onWarning, assertOpen });
    const inFlight = createInFlight(assertOpen);
    return {
        backend: 'lowdb',
        docs: inFlight.guard(docs.api),
        logs: inFlight.guard(logs.api),
        open() {
            if (state === 'open')
                return Promise.resolve();
            if (state === 'closing')
                return Promise.reject(new Error('the store is closing'));
            opening ??= (async () => {
                state = 'opening';
                try {
                    await Promise.all([docs.open(), logs.open()]);
                    state = 'open';
                    closing = undefined;
                }
                catch (error) {
                    state = 'closed';
                    throw error;
                }
                finally {
                    opening = undefined;
                }
            })();
            return opening;
        },
        async close() {
            if (opening !== undefined)
                await opening.catch(() => undefined);
            if (state === 'open') {
                state = 'closing';
                closing = (async () => {
                    try {
                        // Calls accepted before close finish first, including those still opening their file.
                        await inFlight.drain();
                        await Promise.all([docs.close(), logs.close()]);
                    }
                    finally {
                        state = 'closed';
                    }
                })();
            }
            await closing;
        },
        isOpen: () => state === 'open',
    };
}
//# sourceMappingURL=lowdb.store.js.map