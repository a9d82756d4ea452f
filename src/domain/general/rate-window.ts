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
  const hits = new Map<string, number[]>();
  const maxKeys = opts.maxKeys ?? 10_000;

  const live = (key: string, nowMs: number): number[] => {
    const list = (hits.get(key) ?? []).filter((t) => t > nowMs - opts.windowMs);
    if (list.length === 0) hits.delete(key);
    else hits.set(key, list);
    return list;
  };

  return {
    hit(key, nowMs) {
      const list = live(key, nowMs);
      if (list.length >= opts.limit) return false;
      list.push(nowMs);
      hits.delete(key);
      hits.set(key, list);
      if (hits.size > maxKeys) hits.delete(hits.keys().next().value!);
      return true;
    },
    retryAfterMs(key, nowMs) {
      const list = live(key, nowMs);
      return list.length < opts.limit ? 0 : list[0]! + opts.windowMs - nowMs;
    },
  };
}
