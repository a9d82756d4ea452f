import { join } from 'node:path';
import type { Store } from '../port.js';
import { createDocCollections } from './doc-collections.js';
import type { LowdbWarning } from './log-file.js';
import { createInFlight } from './in-flight.js';
import { createLogStreams } from './log-streams.js';
import { lockDataDir } from './dir-lock.js';
import { createLocalLocks, createLocalPubSub } from '../local-coordination.js';

export type { LowdbWarning } from './log-file.js';

export interface LowdbStoreOptions {
  /** Root folder: documents go to `<dataDir>/docs`, logs to `<dataDir>/logs`. */
  dataDir: string;
  /**
   * When true (the default) a write resolves only once it is on the disk: one fdatasync per log
   * batch, and a file and directory sync after each document write.
   */
  fsync?: boolean;
  /** Told about repairs made at open (a torn last log line dropped). */
  onWarning?: (warning: LowdbWarning) => void;
}

/**
 * The embedded store: small document collections as lowdb JSON files written atomically, and logs as
 * append-only JSON-lines files with an in-memory index and group commit. One process per `dataDir`.
 */
export function createLowdbStore(options: LowdbStoreOptions): Store {
  const fsync = options.fsync ?? true;
  let state: 'closed' | 'opening' | 'open' | 'closing' = 'closed';
  let opening: Promise<void> | undefined;
  let closing: Promise<void> | undefined;
  let unlock: (() => Promise<void>) | undefined;
  const assertOpen = (): void => {
    if (state !== 'open') throw new Error('the store is not open');
  };
  const docs = createDocCollections({ dir: join(options.dataDir, 'docs'), fsync, assertOpen });
  const logs = createLogStreams({ dir: join(options.dataDir, 'logs'), fsync, onWarning: options.onWarning, assertOpen });
  const inFlight = createInFlight(assertOpen);

  return {
    backend: 'lowdb',
    docs: inFlight.guard(docs.api),
    logs: inFlight.guard(logs.api),
    locks: createLocalLocks(),
    pubsub: createLocalPubSub(),
    open() {
      if (state === 'open') return Promise.resolve();
      if (state === 'closing') return Promise.reject(new Error('the store is closing'));
      opening ??= (async () => {
        state = 'opening';
        try {
          unlock = await lockDataDir(options.dataDir);
          await Promise.all([docs.open(), logs.open()]);
          state = 'open';
          closing = undefined;
        } catch (error) {
          state = 'closed';
          await unlock?.();
          unlock = undefined;
          throw error;
        } finally {
          opening = undefined;
        }
      })();
      return opening;
    },
    async close() {
      if (opening !== undefined) await opening.catch(() => undefined);
      if (state === 'open') {
        state = 'closing';
        closing = (async () => {
          try {
            // Calls accepted before close finish first, including those still opening their file.
            await inFlight.drain();
            await Promise.all([docs.close(), logs.close()]);
          } finally {
            state = 'closed';
            await unlock?.();
            unlock = undefined;
          }
        })();
      }
      await closing;
    },
    isOpen: () => state === 'open',
  };
}
