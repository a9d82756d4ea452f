interface Waiting<K, V> {
  key: K;
  waiters: Array<{ resolve: (value: V | undefined) => void; reject: (error: unknown) => void }>;
}

/**
 * Point reads coalesced per event-loop turn: every read made during one turn goes out in one query when
 * the turn ends (identical keys once), instead of one pooled round trip each. A read joins only a query
 * not yet sent, so what it returns was read after it was asked: no staler than a read of its own.
 * `one` answers a turn that asked for a single key (a prepared statement of its own), `many` the rest,
 * by `idOf` of each key found.
 */
export function batchPerTurn<K, V>(options: {
  idOf: (key: K) => string;
  one: (key: K) => Promise<V | undefined>;
  many: (keys: K[]) => Promise<Map<string, V>>;
}): (key: K) => Promise<V | undefined> {
  const { idOf, one, many } = options;
  let pending: Map<string, Waiting<K, V>> | undefined;

  async function flush(): Promise<void> {
    const batch = [...pending!.values()];
    pending = undefined;
    try {
      const found = batch.length === 1 ? new Map([[idOf(batch[0]!.key), await one(batch[0]!.key)]]) : await many(batch.map((e) => e.key));
      for (const entry of batch) for (const w of entry.waiters) w.resolve(found.get(idOf(entry.key)));
    } catch (error) {
      for (const entry of batch) for (const w of entry.waiters) w.reject(error);
    }
  }

  return (key) =>
    new Promise((resolve, reject) => {
      if (pending === undefined) {
        pending = new Map();
        setImmediate(() => void flush());
      }
      const id = idOf(key);
      let entry = pending.get(id);
      if (entry === undefined) pending.set(id, (entry = { key, waiters: [] }));
      entry.waiters.push({ resolve, reject });
    });
}
