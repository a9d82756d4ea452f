import { DuplicateKeyError, type Store } from '../../storage/port.js';

/**
 * The node's own secrets, one record per named secret (the signing and receipt keys under `node`, the
 * vault and anchor-id secrets under their own ids). Holds secrets: never export or log it.
 */
const NODE_KEYS = 'node-keys';

export interface NodeKeyRepository {
  /**
   * The secret record stored under `id`, creating it from `fresh()` on first use. When several
   * processes create it at once, the first insert wins and every caller gets the winner's record.
   */
  getOrCreate<T extends object>(id: string, fresh: () => T): Promise<T>;
}

/** The one owner of the `node-keys` collection. */
export function createNodeKeyRepository(store: Store): NodeKeyRepository {
  return {
    async getOrCreate<T extends object>(id: string, fresh: () => T): Promise<T> {
      const stored = await store.docs.get<T>(NODE_KEYS, id);
      if (stored) return stored;
      const created = fresh();
      try {
        await store.docs.insert(NODE_KEYS, id, created);
        return created;
      } catch (err) {
        if (!(err instanceof DuplicateKeyError)) throw err;
        return (await store.docs.get<T>(NODE_KEYS, id))!;
      }
    },
  };
}
