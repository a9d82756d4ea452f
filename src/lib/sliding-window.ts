/** One use more, or how long until one fits: `hits` are the uses still inside the window, oldest first. */
export type HitTake = { taken: true; hits: number[] } | { taken: false; hits: number[]; retryAfterMs: number };

/**
 * The counting of a sliding window: at most `limit` uses per key within the last `windowMs`. It keeps
 * no state: each key's use times live in a backing of the caller's (a bounded map in memory, a
 * repository record), and these functions say what stays inside the window and what may be taken.
 */
export interface SlidingWindow {
  /** The uses of `hits` still inside the window at `nowMs`, oldest first. */
  live(hits: readonly number[], nowMs: number): number[];
  /** True when no use of `hits` is inside the window any more: a record that can be dropped. */
  isStale(hits: readonly number[], nowMs: number): boolean;
  /** Milliseconds until one more use fits under `limit` (0 when it fits now); `live` as `live()` returns them. */
  retryAfterMs(live: readonly number[], limit: number, nowMs: number): number;
  /** Takes one use at `nowMs` unless `limit` uses of `hits` already fall within the window. */
  take(hits: readonly number[], limit: number, nowMs: number): HitTake;
}

export function createSlidingWindow(windowMs: number): SlidingWindow {
  const live = (hits: readonly number[], nowMs: number): number[] => hits.filter((t) => t > nowMs - windowMs);
  const retryAfterMs = (inside: readonly number[], limit: number, nowMs: number): number => {
    if (inside.length < limit) return 0;
    // A place frees when the use `limit` places from the newest leaves the window.
    const freeing = inside[inside.length - limit];
    return freeing === undefined ? windowMs : Math.max(1, freeing + windowMs - nowMs);
  };
  return {
    live,
    isStale: (hits, nowMs) => hits.every((t) => t <= nowMs - windowMs),
    retryAfterMs,
    take(hits, limit, nowMs) {
      const inside = live(hits, nowMs);
      if (inside.length >= limit) return { taken: false, hits: inside, retryAfterMs: retryAfterMs(inside, limit, nowMs) };
      return { taken: true, hits: [...inside, nowMs] };
    },
  };
}

/**
 * Sets `key` as the newest entry of `map` and forgets the oldest entries beyond `maxKeys`: a per-key
 * memory that stays bounded whoever calls, the keys touched longest ago (whose windows end first) going first.
 */
export function setNewest<K, V>(map: Map<K, V>, key: K, value: V, maxKeys: number): void {
  map.delete(key);
  map.set(key, value);
  while (map.size > maxKeys) map.delete(map.keys().next().value!);
}
