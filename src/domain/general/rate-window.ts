import { createSlidingWindow, setNewest } from '../../lib/sliding-window.js';

/**
 * A sliding-window rate limit kept in memory: at most `limit` hits per key within `windowMs`. Per
 * process (a restart forgives), bounded to `maxKeys` keys, the oldest forgotten first.
 */
export interface RateWindow {
  /** Records a hit for `key` at `nowMs` and returns true, or returns false (recording nothing) when over the limit. */
  hit(key: string, nowMs: number): boolean;
  /** Milliseconds until `key` may hit again (0 when it may now). */
  retryAfterMs(key: string, nowMs: number): number;
}

export function createRateWindow(opts: { limit: number; windowMs: number; maxKeys?: number }): RateWindow {
  const sliding = createSlidingWindow(opts.windowMs);
  const hits = new Map<string, number[]>();
  const maxKeys = opts.maxKeys ?? 10_000;

  const live = (key: string, nowMs: number): number[] => {
    const list = sliding.live(hits.get(key) ?? [], nowMs);
    if (list.length === 0) hits.delete(key);
    else hits.set(key, list);
    return list;
  };

  return {
    hit(key, nowMs) {
      const take = sliding.take(live(key, nowMs), opts.limit, nowMs);
      if (take.taken) setNewest(hits, key, take.hits, maxKeys);
      return take.taken;
    },
    retryAfterMs: (key, nowMs) => sliding.retryAfterMs(live(key, nowMs), opts.limit, nowMs),
  };
}
