import type { Store } from '../../storage/port.js';

/** The uses of one key in the current window (ids are SHA-256 of the key: client addresses are not stored). */
export interface WindowRecord {
  id: string;
  /** Times of the uses still inside the window, oldest first; never more than the limit. */
  hits: number[];
}

/**
 * The collections that hold rolling windows, one per kind of use: demo keys minted per client address
 * (`quotas.service.ts`) and password guesses per machine and guesser (`chain/unlock-throttle.ts`).
 */
export type WindowCollection = 'quota-demo-keys' | 'unlock-guesses';

export interface RollingWindowRepository {
  /**
   * Read-modify-write of one key's window without lost updates: `fn` sees the stored record (or
   * undefined) and returns the next one, or undefined to leave it as it is. Concurrent updates of one
   * id are serialized across every process sharing the store.
   */
  update(id: string, fn: (current: WindowRecord | undefined) => WindowRecord | undefined): Promise<void>;
  /** Deletes every record for which `stale` holds at the moment of its deletion. */
  sweep(stale: (record: WindowRecord) => boolean): Promise<void>;
}

/** The one owner of a rolling-window collection. */
export function createRollingWindowRepository(store: Store, collection: WindowCollection): RollingWindowRepository {
  return {
    async update(id, fn) {
      await store.docs.update<WindowRecord>(collection, id, fn);
    },

    async sweep(stale) {
      // Listed whole: a record lives one window after its last use and the sweep runs once a window, so
      // the collection holds at most two windows of distinct keys.
      for (const record of await store.docs.list<WindowRecord>(collection, stale)) {
        await store.docs.deleteIf<WindowRecord>(collection, record.id, stale);
      }
    },
  };
}
