import type { PgRunner } from './pg-context.js';
import type { Tables } from './sql.js';

interface Waiting {
  collection: string;
  id: string;
  waiters: Array<{ resolve: (value: unknown) => void; reject: (error: unknown) => void }>;
}

/**
 * Document reads by key, coalesced per event-loop turn: every `get` made during one turn goes out in
 * one query when the turn ends (identical keys once), instead of one pooled round trip each. Under load
 * a request reads its key and its machine, so 50 concurrent requests made ~150 round trips where this
 * makes a few. A read joins only a query not yet sent, so what it returns was read after it was asked:
 * no staler than a read of its own. Each caller gets its own parsed copy.
 */
export function createDocReader(db: PgRunner, t: Tables) {
  const one = { name: `core_doc_get_${t.schemaName}`.slice(0, 63), text: `SELECT body::text AS text FROM ${t.docs} WHERE collection = $1 AND id = $2` };
  const many = {
    name: `core_doc_get_many_${t.schemaName}`.slice(0, 63),
    text: `SELECT d.collection, d.id, d.body::text AS text
           FROM unnest($1::text[], $2::text[]) AS k (collection, id)
           JOIN ${t.docs} d ON d.collection = k.collection AND d.id = k.id`,
  };
  let pending: Map<string, Waiting> | undefined;

  function settle(entry: Waiting, text: string | undefined): void {
    for (const w of entry.waiters) {
      try {
        w.resolve(text === undefined ? undefined : JSON.parse(text));
      } catch (error) {
        w.reject(error);
      }
    }
  }

  async function flush(): Promise<void> {
    const batch = [...pending!.values()];
    pending = undefined;
    try {
      if (batch.length === 1) {
        const entry = batch[0]!;
        const { rows } = await db.query<{ text: string }>({ ...one, values: [entry.collection, entry.id] });
        return settle(entry, rows[0]?.text);
      }
      const { rows } = await db.query<{ collection: string; id: string; text: string }>({
        ...many,
        values: [batch.map((e) => e.collection), batch.map((e) => e.id)],
      });
      const found = new Map(rows.map((r) => [`${r.collection}\u0000${r.id}`, r.text]));
      for (const entry of batch) settle(entry, found.get(`${entry.collection}\u0000${entry.id}`));
    } catch (error) {
      for (const entry of batch) for (const w of entry.waiters) w.reject(error);
    }
  }

  return function get<T>(collection: string, id: string): Promise<T | undefined> {
    // In a lock transaction: read on its client (a batch read on the pool would not see its writes).
    if (db.tx() !== undefined) {
      return db
        .query<{ text: string }>({ ...one, values: [collection, id] })
        .then(({ rows }) => (rows[0] === undefined ? undefined : (JSON.parse(rows[0].text) as T)));
    }
    return new Promise((resolve, reject) => {
      if (pending === undefined) {
        pending = new Map();
        setImmediate(() => void flush());
      }
      const key = `${collection}\u0000${id}`;
      let entry = pending.get(key);
      if (entry === undefined) pending.set(key, (entry = { collection, id, waiters: [] }));
      entry.waiters.push({ resolve: resolve as (value: unknown) => void, reject });
    });
  };
}
