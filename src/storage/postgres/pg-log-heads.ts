import type pg from 'pg';
import { escapeLiteral } from './pg-log-sql.js';
import type { Tables } from './sql.js';

/** The types a batch's expectations name, and per type the seq of its last row as read under the lock. */
export interface LastRows {
  stream: string;
  types: Set<string>;
  /** Filled by `lockHeads`; the batch's rows join it as they are built. */
  last: Map<string, number>;
}

type Locked = pg.QueryResult<{ stream: string; next_seq: string }>;

/**
 * Round trip 1 of a batch: opens the transaction (`begin`) and locks the head rows of the given
 * streams, in stream order (so two batches locking the same streams never deadlock), creating them for
 * new streams (one more round trip, once per stream). With `expected`, the last seq of each of its
 * types is read in the same round trip. Simple-query text (several statements, one round trip), so
 * stream names are literals. Resolves with each stream's next seq.
 */
export async function lockHeads(client: pg.PoolClient, t: Tables, streams: string[], begin: string, expected?: LastRows): Promise<Map<string, number>> {
  const list = streams.map(escapeLiteral).join(', ');
  const lock = `SELECT stream, next_seq FROM ${t.logHeads} WHERE stream IN (${list}) ORDER BY stream FOR UPDATE`;
  // A statement of its own after the lock, so a snapshot taken once it is granted: every row of these
  // types committed before is seen, and no other can come in until this transaction ends.
  const last = expected === undefined ? '' : `; ${lastOfTypesSql(t, expected)}`;
  let results = (await client.query(`${begin}${lock}${last}`)) as unknown as pg.QueryResult[] | pg.QueryResult;
  const locked = () => (Array.isArray(results) ? results.at(expected === undefined ? -1 : -2)! : results) as Locked;
  if (locked().rowCount !== streams.length) {
    const rows = streams.map((s) => `(${escapeLiteral(s)})`).join(', ');
    results = (await client.query(
      `INSERT INTO ${t.logHeads} (stream) VALUES ${rows} ON CONFLICT (stream) DO NOTHING; ${lock}${last}`,
    )) as unknown as pg.QueryResult[];
  }
  if (expected !== undefined) {
    for (const r of (results as pg.QueryResult[]).at(-1)!.rows as Array<{ type: string; last: string }>) expected.last.set(r.type, Number(r.last));
  }
  return new Map(locked().rows.map((r) => [r.stream, Number(r.next_seq)]));
}

/** The last seq of each type `expected` names, from the (stream, type, seq) index. */
const lastOfTypesSql = (t: Tables, { stream, types }: LastRows) =>
  `SELECT type, max(seq)::text AS last FROM ${t.logRows} WHERE stream = ${escapeLiteral(stream)} AND type IN (${[...types].map(escapeLiteral).join(', ')}) GROUP BY type`;
