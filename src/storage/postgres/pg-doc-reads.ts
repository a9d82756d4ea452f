import type { PgRunner } from './pg-context.js';
import type { Tables } from './sql.js';
import { batchPerTurn } from './turn-batch.js';

/**
 * Document reads by key, coalesced per event-loop turn (`batchPerTurn`). Under load a request reads its
 * key and its machine, so 50 concurrent requests made ~150 round trips where this makes a few. Each
 * caller gets its own parsed copy.
 */
export function createDocReader(db: PgRunner, t: Tables) {
  const one = { name: `core_doc_get_${t.schemaName}`.slice(0, 63), text: `SELECT body::text AS text FROM ${t.docs} WHERE collection = $1 AND id = $2` };
  const many = {
    name: `core_doc_get_many_${t.schemaName}`.slice(0, 63),
    text: `SELECT d.collection, d.id, d.body::text AS text
           FROM unnest($1::text[], $2::text[]) AS k (collection, id)
           JOIN ${t.docs} d ON d.collection = k.collection AND d.id = k.id`,
  };
  const readOne = async ({ collection, id }: { collection: string; id: string }) =>
    (await db.query<{ text: string }>({ ...one, values: [collection, id] })).rows[0]?.text;
  const batched = batchPerTurn<{ collection: string; id: string }, string>({
    idOf: (k) => `${k.collection}\u0000${k.id}`,
    one: readOne,
    async many(keys) {
      const { rows } = await db.query<{ collection: string; id: string; text: string }>({
        ...many,
        values: [keys.map((k) => k.collection), keys.map((k) => k.id)],
      });
      return new Map(rows.map((r) => [`${r.collection}\u0000${r.id}`, r.text]));
    },
  });

  return async function get<T>(collection: string, id: string): Promise<T | undefined> {
    // In a lock transaction: read on its client (a batch read on the pool would not see its writes).
    const text = db.tx() !== undefined ? await readOne({ collection, id }) : await batched({ collection, id });
    return text === undefined ? undefined : (JSON.parse(text) as T);
  };
}
