import type pg from 'pg';
import type { LogRow, RowInput } from '../port.js';
import { inTransaction, type Tables } from './sql.js';

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
 * Appends with group commit. Appends to one stream queue in this process; each transaction takes the
 * whole queue, locks the stream's `log_heads` row (`FOR UPDATE`, so appends from other processes wait
 * too), builds every queued row on the head it reads after the lock, inserts them in one statement and
 * moves `next_seq` on. A build that throws rejects only its own append; a failed commit rejects the batch.
 */
export function createLogAppender({ pool, tables: t }: LogAppenderOptions) {
  const queues = new Map<string, Pending[]>();
  /** Last row written per stream: rows never change, so it is valid whenever its seq is `next_seq - 1`. */
  const heads = new Map<string, { seq: number; text: string }>();

  const sql = {
    lock: { name: 'core_log_lock', text: `SELECT next_seq FROM ${t.logHeads} WHERE stream = $1 FOR UPDATE` },
    create: `INSERT INTO ${t.logHeads} (stream) VALUES ($1) ON CONFLICT (stream) DO NOTHING`,
    head: { name: 'core_log_head', text: `SELECT body::text AS text FROM ${t.logRows} WHERE stream = $1 AND seq = $2` },
    write: {
      name: 'core_log_write',
      text: `WITH written AS (
               INSERT INTO ${t.logRows} (stream, seq, tick, type, body)
               SELECT $1, r.seq, r.tick, r.type, r.body
               FROM unnest($2::bigint[], $3::float8[], $4::text[], $5::json[]) AS r (seq, tick, type, body)
             )
             UPDATE ${t.logHeads} SET next_seq = $6 WHERE stream = $1`,
    },
  };

  /** Locks the stream's head row (creating it for a new stream) and returns the next seq. */
  async function lockStream(client: pg.PoolClient, stream: string): Promise<number> {
    let locked = await client.query<{ next_seq: string }>({ ...sql.lock, values: [stream] });
    if (locked.rowCount === 0) {
      await client.query(sql.create, [stream]);
      locked = await client.query<{ next_seq: string }>({ ...sql.lock, values: [stream] });
    }
    return Number(locked.rows[0]!.next_seq);
  }

  async function headText(client: pg.PoolClient, stream: string, seq: number): Promise<string> {
    const cached = heads.get(stream);
    if (cached?.seq === seq) return cached.text;
    const { rows } = await client.query<{ text: string }>({ ...sql.head, values: [stream, seq] });
    if (rows[0] === undefined) throw new Error(`log ${stream}: row ${seq} is missing below next_seq`);
    return rows[0].text;
  }

  function remember(stream: string, seq: number, text: string): void {
    heads.delete(stream);
    heads.set(stream, { seq, text });
    if (heads.size > MAX_CACHED_HEADS) heads.delete(heads.keys().next().value!);
  }

  async function commit(stream: string, batch: Pending[]): Promise<void> {
    const built: Array<Encoded & { pending: Pending }> = [];
    const refused = new Set<Pending>();
    try {
      await inTransaction(pool(), async (client) => {
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
        if (built.length === 0) return;
        const columns = [built.map((b) => b.row.seq), built.map((b) => b.tick), built.map((b) => b.type), built.map((b) => b.text)];
        await client.query({ ...sql.write, values: [stream, ...columns, next] });
      });
    } catch (error) {
      for (const pending of batch) if (!refused.has(pending)) pending.reject(error);
      return;
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
