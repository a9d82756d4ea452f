import type pg from 'pg';
import type { LastOfType, LogQuery, LogRow, LogStore, LogTally, RowInput } from '../port.js';
import type { PgRunner } from './pg-context.js';
import { createLogAppender } from './pg-log-append.js';
import type { Tables } from './sql.js';
import { batchPerTurn } from './turn-batch.js';

export interface PgLogsOptions {
  /** The open store's pool; throws when the store is not open. */
  pool: () => pg.Pool;
  /** Where statements go: the caller's lock transaction, or the pool. */
  db: PgRunner;
  tables: Tables;
}

export interface PgLogs {
  api: LogStore;
  /** Forgets what the adapter remembers about streams (the store is closing). */
  reset(): void;
}

/**
 * The SQL for a `read`, or undefined when the query selects nothing. Seq bounds are rounded to the
 * integers they admit, so the comparison stays on the `(stream, seq)` index.
 */
export function readSql(t: Tables, stream: string, query: LogQuery): { text: string; values: unknown[] } | undefined {
  const values: unknown[] = [stream];
  const where = ['stream = $1'];
  const param = (value: unknown): string => `$${values.push(value)}`;
  const fromSeq = Math.ceil(query.fromSeq ?? 0);
  const toSeq = Math.floor(query.toSeq ?? Infinity);
  if (Number.isNaN(fromSeq) || Number.isNaN(toSeq) || fromSeq === Infinity || toSeq === -Infinity) return undefined;
  if (fromSeq > 0) where.push(`seq >= ${param(fromSeq)}`);
  if (toSeq !== Infinity) where.push(`seq <= ${param(toSeq)}`);
  if (query.fromTick !== undefined) where.push(`tick >= ${param(query.fromTick)}::float8`);
  if (query.toTick !== undefined) where.push(`tick <= ${param(query.toTick)}::float8`);
  if (query.types !== undefined) {
    if (query.types.length === 0) return undefined;
    where.push(`type = ANY(${param(query.types)}::text[])`);
  }
  let limit = '';
  if (query.limit !== undefined) {
    if (!(query.limit > 0)) return undefined;
    if (query.limit !== Infinity) limit = ` LIMIT ${param(Math.ceil(query.limit))}`;
  }
  const order = query.reverse === true ? 'DESC' : 'ASC';
  return { text: `SELECT body FROM ${t.logRows} WHERE ${where.join(' AND ')} ORDER BY seq ${order}${limit}`, values };
}

/** The log half of the PostgreSQL store: rows in `log_rows`, one `log_heads` row per stream holding its next seq. */
export function createPgLogs({ pool, db, tables: t }: PgLogsOptions): PgLogs {
  const appender = createLogAppender({ pool, db, tables: t });
  const sql = {
    // A stream's head row is the one below its next seq: written in the transaction that moved it.
    top: {
      name: `core_log_top_${t.schemaName}`.slice(0, 63),
      text: `SELECT h.next_seq, r.body::text AS text FROM ${t.logHeads} h
        LEFT JOIN ${t.logRows} r ON r.stream = h.stream AND r.seq = h.next_seq - 1 WHERE h.stream = $1`,
    },
    tops: {
      name: `core_log_tops_${t.schemaName}`.slice(0, 63),
      text: `SELECT h.stream, h.next_seq, r.body::text AS text FROM unnest($1::text[]) AS k (stream)
        JOIN ${t.logHeads} h ON h.stream = k.stream
        LEFT JOIN ${t.logRows} r ON r.stream = h.stream AND r.seq = h.next_seq - 1`,
    },
    get: `SELECT body FROM ${t.logRows} WHERE stream = $1 AND seq = $2`,
    // The (stream, tick) index answers both without reading row bodies.
    tally: `SELECT stream, count(*)::int AS rows, max(tick) AS last_tick FROM ${t.logRows}
      WHERE stream = ANY($1::text[]) AND tick >= $2::float8 GROUP BY stream`,
    countUnder: `SELECT coalesce(sum(next_seq), 0)::text AS rows FROM ${t.logHeads} WHERE starts_with(stream, $1)`,
    streams: `SELECT stream FROM ${t.logHeads} WHERE next_seq > 0 AND starts_with(stream, $1) ORDER BY stream COLLATE "C"`,
  };

  type Top = { next_seq: string; text: string | null };
  const readTop = async (stream: string) => (await db.query<Top>({ ...sql.top, values: [stream] })).rows[0];
  // A page of machines shows each one's head and row count: coalesced, the page costs one query, not two per machine.
  const batchedTop = batchPerTurn<string, Top>({
    idOf: (stream) => stream,
    one: readTop,
    async many(streams) {
      const { rows } = await db.query<Top & { stream: string }>({ ...sql.tops, values: [streams] });
      return new Map(rows.map((r) => [r.stream, r]));
    },
  });
  // In a lock transaction: read on its client (a batch read on the pool would not see its writes).
  const topOf = (stream: string) => (db.tx() !== undefined ? readTop(stream) : batchedTop(stream));

  const api: LogStore = {
    async append<R extends LogRow>(stream: string, build: (head: R | undefined, seq: number) => RowInput<R>, expect?: LastOfType) {
      return (await appender.append(stream, build as unknown as Parameters<typeof appender.append>[1], expect)) as R;
    },
    async head<R extends LogRow>(stream: string) {
      const text = (await topOf(stream))?.text;
      return text == null ? undefined : (JSON.parse(text) as R);
    },
    async count(stream) {
      const top = await topOf(stream);
      return top === undefined ? 0 : Number(top.next_seq);
    },
    async tally(streams, fromTick) {
      const tallies = new Map<string, LogTally>();
      if (streams.length === 0 || Number.isNaN(fromTick)) return tallies;
      const { rows } = await db.query<{ stream: string; rows: number; last_tick: number }>(sql.tally, [[...new Set(streams)], fromTick]);
      for (const row of rows) tallies.set(row.stream, { rows: row.rows, lastTick: row.last_tick });
      return tallies;
    },
    async countUnder(prefix) {
      const { rows } = await db.query<{ rows: string }>(sql.countUnder, [prefix]);
      return Number(rows[0]!.rows);
    },
    async get<R extends LogRow>(stream: string, seq: number) {
      if (!Number.isSafeInteger(seq) || seq < 0) return undefined;
      const { rows } = await db.query<{ body: R }>(sql.get, [stream, seq]);
      return rows[0]?.body;
    },
    async read<R extends LogRow>(stream: string, query: LogQuery = {}) {
      const statement = readSql(t, stream, query);
      if (statement === undefined) return [];
      const { rows } = await db.query<{ body: R }>(statement);
      return rows.map((row) => row.body);
    },
    async streams(prefix = '') {
      const { rows } = await db.query<{ stream: string }>(sql.streams, [prefix]);
      return rows.map((row) => row.stream);
    },
  };
  return { api, reset: () => appender.reset() };
}
