import { sha256Hex } from '../../lib/hash.js';
import { createSlidingWindow } from '../../lib/sliding-window.js';
import type { RollingWindowRepository } from './rolling-window-repository.js';

export type WindowTake = { taken: true } | { taken: false; retry_after_ms: number };

export interface RollingWindows {
  /**
   * Takes one use of `key` unless `limit` uses already fall within the window. The check and the take
   * are one atomic update of the stored record, so concurrent callers (in any process sharing the
   * store) can never take more than `limit` between them.
   */
  take(key: string, limit: number): Promise<WindowTake>;
}

/** Rolling windows of `windowMs` over one collection (the repository's); stale records are swept once a window. */
export function createRollingWindows(deps: { windows: RollingWindowRepository; windowMs: number; now: () => number }): RollingWindows {
  const { windowMs, now } = deps;
  const sliding = createSlidingWindow(windowMs);
  const { windows } = deps;
  let sweptAt = -Infinity;

  async function sweep(nowMs: number): Promise<void> {
    sweptAt = nowMs;
    await windows.sweep((r) => sliding.isStale(r.hits, nowMs));
  }

  return {
    async take(key, limit) {
      const nowMs = now();
      if (nowMs - sweptAt >= windowMs) await sweep(nowMs);
      const id = sha256Hex(key);
      let refusal: WindowTake | undefined;
      await windows.update(id, (current) => {
        const take = sliding.take(current?.hits ?? [], limit, nowMs);
        if (take.taken) return { id, hits: take.hits };
        refusal = { taken: false, retry_after_ms: take.retryAfterMs };
        return undefined;
      });
      return refusal ?? { taken: true };
    },
  };
}
