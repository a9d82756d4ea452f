import { sha256Hex } from '../../lib/hash.js';
import type { Store } from '../../storage/port.js';

/** The uses of one key in the current window (ids are SHA-256 of the key: client addresses are not stored). */
interface WindowRecord {
  id: string;
  /** Times of the uses still inside the window, oldest first; never more than the limit. */
  hits: number[];
}

export type WindowTake = { taken: true } | { taken: false; retry_after_ms: number };

export interface RollingWindows {
  /**
   * Takes one use of `key` unless `limit` uses already fall within the window. The check and the take
   * are one atomic update of the stored record, so concurrent callers (in any process sharing the
   * store) can never take more than `limit` between them.
   */
  take(key: string, limit: number): Promise<WindowTake>;
}

/** Rolling windows of `windowMs` over one collection of the store; stale records are swept once a window. */
export function createRollingWindows(deps: { store: Store; collection: string; windowMs: number; now: () => number }): RollingWindows {
  const { store, collection, windowMs, now } = deps;
  let sweptAt = -Infinity;

  async function sweep(nowMs: number): Promise<void> {
    sweptAt = nowMs;
    const stale = (r: WindowRecord) => r.hits.every((t) => t <= nowMs - windowMs);
    for (const record of await store.docs.list<WindowRecord>(collection, stale)) {
      await store.docs.deleteIf<WindowRecord>(collection, record.id, stale);
    }
  }

  return {
    async take(key, limit) {
      const nowMs = now();
      if (nowMs - sweptAt >= windowMs) await sweep(nowMs);
      const id = sha256Hex(key);
      let refusal: WindowTake | undefined;
      await store.docs.update<WindowRecord>(collection, id, (current) => {
        const hits = (current?.hits ?? []).filter((t) => t > nowMs - windowMs);
        if (hits.length >= limit) {
          // A slot frees when the use `limit` places from the newest leaves the window.
          const freeing = hits[hits.length - limit];
          refusal = { taken: false, retry_after_ms: freeing === undefined ? windowMs : Math.max(1, freeing + windowMs - nowMs) };
          return undefined;
        }
        return { id, hits: [...hits, nowMs] };
      });
      return refusal ?? { taken: true };
    },
  };
}
