import type pg from 'pg';
import type { LogRow, RowInput } from '../port.js';
import type { Tables } from './sql.js';

type Build = (head: LogRow | undefined, seq: number) => RowInput<LogRow>;

interface Pending {
  build: Build;
  resolve: (row: LogRow) => void;
  reject: (error: unknown) => void;
}

interface Encoded {
  row: LogRow;
  text: string;
  tick: number;
  type: string;
}

/** Most rows written by one transaction; a longer queue is committed in several. */
const MAX_BATCH = 500;
/** Streams whose last written row this process remembers, to skip re-reading it at the next append. */
const MAX_CACHED_HEADS = 1024;

export interface LogAppenderOptions {
  pool: () => pg.Pool;
  tables: Tables;
}

/** The row `build` returned, with the seq set by the store, as stored (JSON text) and as read back. */
function encode(built: RowInput<LogRow>, seq: number): Encoded {
  const draft: Record<string, unknown> = { seq, ...built };
  draft['seq'] = seq;
  const { tick, type } = draft;
  if (typeof tick !== 'number' || !Number.isFinite(tick)) throw new TypeError('row tick must be a finite number');
  if (typeof type !== 'string') throw new TypeError('row type must be a string');
  const text = JSON.stringify(draft);
  return { row: JSON.parse(text) as LogRow, text, tick, type };
}

/**
 * A string as a SQL literal, escaped exactly as pg's `escapeLiteral` does (quotes doubled; with any
 * backslash, an E'' literal with backslashes doubled), without its per-character loop, which showed up
 * in the profile on kilobyte-long batches.
 */
function escapeLiteral(value: string): string {
  const quoted = `'${value.replaceAll("'", "''")}'`;
  return value.includes('\\') ? ` E${quoted.replaceAll('\\', '\\\\')}` : quoted;
}

/** An array literal (`{...}`) of numbers or strings, each string double-quoted with `"` and `\\` escaped (as pg sends arrays). */
function arrayLiteral(values: Array<string | number>): string {
  const parts = values.map((v) => (typeof v === 'number' ? String(v) : `"${v.replace(/[\\"]/g, '\\$&')}"`));
  return `{${parts.join(',')}}`;
}

/**
 * Appends with group commit. Appends to one stream queue in this process; each transaction takes the
 * whole queue, locks the stream's `log_heads` row (`FOR UPDATE`, so appends from other processes wait
 * too), builds every queued row on the head it reads after the lock, inserts them in one statement and
 * moves `next_seq` on: two round trips per batch (see lockStream and writeAndCommit). A build that throws rejects only its own append; a failed commit rejects the batch.
 */
export function createLogAppender({ pool, tables: t }: LogAppenderOptions) {
  const queues = new Map<string, Pending[]>();
  /** Last row written per stream: rows never change, so it is valid whenever its seq is `next_seq - 1`. */
  const heads = new Map<string, { seq: number; text: string }>();

  const headSql = { name: 'core_log_head', text: `SELECT body::text AS text FROM ${t.logRows} WHERE stream = $1 AND seq = $2` };

  /**
   * Round trip 1 of a batch: opens the transaction and locks the stream's head row, creating it for a
   * new stream. Simple-query text (several statements, one round trip), so the stream name is a literal.
   */
  async function lockStream(client: pg.PoolClient, stream: string): Promise<number> {
    const s = escapeLiteral(stream);
    const lock = `SELECT next_seq FROM ${t.logHeads} WHERE stream = ${s} FOR UPDATE`;
    let results = (await client.query(`BEGIN; ${lock}`)) as unknown as pg.QueryResult<{ next_seq: string }>[];
    let locked = results[1]!;
    if (locked.rowCount === 0) {
      results = (await client.query(`INSERT INTO ${t.logHeads} (stream) VALUES (${s}) ON CONFLICT (stream) DO NOTHING; ${lock}`)) as unknown as pg.QueryResult<{ next_seq: string }>[];
      locked = results[1]!;
    }
    return Number(locked.rows[0]!.next_seq);
  }

  async function headText(client: pg.PoolClient, stream: string, seq: number): Promise<string> {
    const cached = heads.get(stream);
    if (cached?.seq === seq) return cached.text;
    const { rows } = await client.query<{ text: string }>({ ...headSql, values: [stream, seq] });
    if (rows[0] === undefined) throw new Error(`log ${stream}: row ${seq} is missing below next_seq`);
    return rows[0].text;
  }

  /**
   * Round trip 2: inserts the batch, moves `next_seq` on and commits, as one simple query. If the
   * insert fails, PostgreSQL skips the COMMIT after it and the caller rolls back. The bodies go as one
   * JSON array literal, split by `json_array_elements` (which keeps each element's text exactly as
   * sent, so the stored bytes are those of `JSON.stringify`): as a `json[]` literal every double quote
   * of every row needed escaping twice, which made the query about a fifth longer and cost a pass per
   * row here and an array parse in PostgreSQL. `ROWS FROM` zips the columns by position.
   */
  function writeAndCommit(client: pg.PoolClient, stream: string, built: Encoded[], next: number) {
    const s = escapeLiteral(stream);
    const column = (values: Array<string | number>) => escapeLiteral(arrayLiteral(values));
    let bodies = '[';
    for (let i = 0; i < built.length; i++) bodies += (i === 0 ? '' : ',') + built[i]!.text;
    bodies += ']';
    return client.query(
      `WITH written AS (
         INSERT INTO ${t.logRows} (stream, seq, tick, type, body)
         SELECT ${s}, r.seq, r.tick, r.type, r.body
         FROM ROWS FROM (unnest(${column(built.map((b) => b.row.seq))}::bigint[]), unnest(${column(built.map((b) => b.tick))}::float8[]),
                         unnest(${column(built.map((b) => b.type))}::text[]), json_array_elements(${escapeLiteral(bodies)}::json)) AS r (seq, tick, type, body)
       )
       UPDATE ${t.logHeads} SET next_seq = ${next} WHERE stream = ${s}; COMMIT`,
    );
  }

  function remember(stream: string, seq: number, text: string): void {
    heads.delete(stream);
    heads.set(stream, { seq, text });
    if (heads.size > MAX_CACHED_HEADS) heads.delete(heads.keys().next().value!);
  }

  /** One transaction for the batch in two round trips (see lockStream and writeAndCommit). */
  async function commit(stream: string, batch: Pending[]): Promise<void> {
    const built: Array<Encoded & { pending: Pending }> = [];
    const refused = new Set<Pending>();
    let client: pg.PoolClient | undefined;
    let broken: Error | undefined;
    try {
      client = await pool().connect();
      let next = await lockStream(client, stream);
      let head = next === 0 ? undefined : await headText(client, stream, next - 1);
      for (const pending of batch) {
        let encoded: Encoded;
        try {
          encoded = encode(pending.build(head === undefined ? undefined : (JSON.parse(head) as LogRow), next), next);
        } catch (error) {
          refused.add(pending);
          pending.reject(error);
          continue;
        }
        built.push({ ...encoded, pending });
        head = encoded.text;
        next += 1;
      }
      if (built.length === 0) await client.query('COMMIT');
      else await writeAndCommit(client, stream, built, next);
    } catch (error) {
      if (client !== undefined) {
        try {
          await client.query('ROLLBACK');
        } catch (rollbackError) {
          broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
        }
      }
      for (const pending of batch) if (!refused.has(pending)) pending.reject(error);
      return;
    } finally {
      client?.release(broken);
    }
    const last = built.at(-1);
    if (last !== undefined) remember(stream, last.row.seq, last.text);
    for (const { pending, row } of built) pending.resolve(row);
  }

  async function drainQueue(stream: string): Promise<void> {
    for (;;) {
      const queue = queues.get(stream)!;
      if (queue.length === 0) {
        queues.delete(stream);
        return;
      }
      await commit(stream, queue.splice(0, MAX_BATCH));
    }
  }

  return {
    /** Resolves with the row once its transaction has committed. */
    append(stream: string, build: Build): Promise<LogRow> {
      if (typeof stream !== 'string' || stream.length === 0) return Promise.reject(new TypeError('stream name must be a non-empty string'));
      return new Promise<LogRow>((resolve, reject) => {
        const queued = queues.get(stream);
        if (queued !== undefined) return void queued.push({ build, resolve, reject });
        queues.set(stream, [{ build, resolve, reject }]);
        void drainQueue(stream);
      });
    },
    /** Forgets remembered heads (the store is closing). */
    reset(): void {
      heads.clear();
    },
  };
}
