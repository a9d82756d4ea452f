/**
 * A map with expiry times and a hard cap on entries, evicting the least recently used: what it holds is
 * bounded however many distinct keys callers send.
 */
export interface BoundedCache<V> {
  get(key: string, now: number): V | undefined;
  set(key: string, value: V, expiresAt: number): void;
  delete(key: string): void;
  readonly size: number;
}

export function createBoundedCache<V>(maxEntries: number): BoundedCache<V> {
  const entries = new Map<string, { value: V; expiresAt: number }>();
  return {
    get(key, now) {
      const entry = entries.get(key);
      if (!entry) return undefined;
      entries.delete(key);
      if (entry.expiresAt <= now) return undefined;
      // Re-inserted last: a Map iterates in insertion order, so the first key is the least recently used.
      entries.set(key, entry);
      return entry.value;
    },
    set(key, value, expiresAt) {
      entries.delete(key);
      entries.set(key, { value, expiresAt });
      while (entries.size > maxEntries) {
        const oldest = entries.keys().next();
        if (oldest.done) break;
        entries.delete(oldest.value);
      }
    },
    delete(key) {
      entries.delete(key);
    },
    get size() {
      return entries.size;
    },
  };
}
