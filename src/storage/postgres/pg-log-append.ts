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
/** Most streams locked up front beside a batch's own (see commit). */
const MAX_COMPANIONS = 4;

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
 * moves `next_seq` on: two round trips per batch (see lockStreams and writeAndCommit). A build that throws rejects only its own append; a failed commit rejects the batch.
 */
export function createLogAppender({ pool, tables: t }: LogAppenderOptions) {
  const queues = new Map<string, Pending[]>();
  /** Last row written per stream: rows never change, so it is valid whenever its seq is `next_seq - 1`. */
  const heads = new Map<string, { seq: number; text: string }>();
  /** Per stream, the streams whose appends joined its last batch (see commit). */
  const companions = new Map<string, string[]>();
  /** Set while a batch's builds run: appends they make to other streams join that batch. */
  let joining: { stream: string; joined: Map<string, Pending[]> } | undefined;

  const headSql = { name: 'core_log_head', text: `SELECT body::text AS text FROM ${t.logRows} WHERE stream = $1 AND seq = $2` };

  /**
   * Round trip 1 of a batch: opens the transaction and locks the head rows of the given streams, in
   * stream order (so two batches locking the same streams never deadlock), creating them for new
   * streams (one more round trip, once per stream). Simple-query text (several statements, one round
   * trip), so stream names are literals. Resolves with each stream's next seq.
   */
  async function lockStreams(client: pg.PoolClient, streams: string[], begin: boolean): Promise<Map<string, number>> {
    const list = streams.map(escapeLiteral).join(', ');
    const lock = `SELECT stream, next_seq FROM ${t.logHeads} WHERE stream IN (${list}) ORDER BY stream FOR UPDATE`;
    type Locked = pg.QueryResult<{ stream: string; next_seq: string }>;
    let results = (await client.query(begin ? `BEGIN; ${lock}` : lock)) as unknown as Locked[] | Locked;
    let locked = Array.isArray(results) ? results.at(-1)! : results;
    if (locked.rowCount !== streams.length) {
      const rows = streams.map((s) => `(${escapeLiteral(s)})`).join(', ');
      results = (await client.query(`INSERT INTO ${t.logHeads} (stream) VALUES ${rows} ON CONFLICT (stream) DO NOTHING; ${lock}`)) as unknown as Locked[];
      locked = results.at(-1)!;
    }
    return new Map(locked.rows.map((r) => [r.stream, Number(r.next_seq)]));
  }

  async function headText(client: pg.PoolClient, stream: string, seq: number): Promise<string> {
    const cached = heads.get(stream);
    if (cached?.seq === seq) return cached.text;
    const { rows } = await client.query<{ text: string }>({ ...headSql, values: [stream, seq] });
    if (rows[0] === undefined) throw new Error(`log ${stream}: row ${seq} is missing below next_seq`);
    return rows[0].text;
  }

  /**
   * Round trip 2: inserts the batch's rows (of one stream, or several when appends joined it), moves
   * each stream's `next_seq` on and commits, as one simple query. If the insert fails, PostgreSQL skips
   * the COMMIT after it and the caller rolls back. The bodies go as one JSON array literal, split by
   * `json_array_elements` (which keeps each element's text exactly as sent, so the stored bytes are
   * those of `JSON.stringify`): as a `json[]` literal every double quote of every row needed escaping
   * twice, which made the query about a fifth longer and cost a pass per row here and an array parse in
   * PostgreSQL. `ROWS FROM` zips the columns by position.
   */
  function writeAndCommit(client: pg.PoolClient, written: Array<{ stream: string; built: Encoded[]; next: number }>) {
    const column = (values: Array<string | number>) => escapeLiteral(arrayLiteral(values));
    const streams: string[] = [];
    const seqs: number[] = [];
    const ticks: number[] = [];
    const types: string[] = [];
    let bodies = '[';
    for (const { stream, built } of written) {
      for (const b of built) {
        bodies += (seqs.length === 0 ? '' : ',') + b.text;
        streams.push(stream);
        seqs.push(b.row.seq);
        ticks.push(b.tick);
        types.push(b.type);
      }
    }
    bodies += ']';
    // One stream (the usual case): its name as one literal rather than a column of copies.
    const single = written.length === 1 ? escapeLiteral(written[0]!.stream) : undefined;
    const moves = written.map(({ stream, next }) => `UPDATE ${t.logHeads} SET next_seq = ${next} WHERE stream = ${escapeLiteral(stream)}`);
    return client.query(
      `WITH written AS (
         INSERT INTO ${t.logRows} (stream, seq, tick, type, body)
         SELECT ${single ?? 'r.stream'}, r.seq, r.tick, r.type, r.body
         FROM ROWS FROM (${single ? '' : `unnest(${column(streams)}::text[]), `}unnest(${column(seqs)}::bigint[]), unnest(${column(ticks)}::float8[]),
                         unnest(${column(types)}::text[]), json_array_elements(${escapeLiteral(bodies)}::json)) AS r (${single ? '' : 'stream, '}seq, tick, type, body)
       )
       ${moves.join('; ')}; COMMIT`,
    );
  }

  function remember(stream: string, seq: number, text: string): void {
    heads.delete(stream);
    heads.set(stream, { seq, text });
    if (heads.size > MAX_CACHED_HEADS) heads.delete(heads.keys().next().value!);
  }

  /** Builds `pending` rows on `head`, from `next`; a build that throws rejects only its own append. */
  function buildAll(pendings: Pending[], head: string | undefined, next: number, refused: Set<Pending>): Array<Encoded & { pending: Pending }> {
    const built: Array<Encoded & { pending: Pending }> = [];
    for (const pending of pendings) {
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
    return built;
  }

  /**
   * One transaction for the batch in two round trips (see lockStreams and writeAndCommit). Appends to
   * other streams made by the batch's builds while they run (a chain row's encrypted payload row) join
   * the same transaction instead of queueing for one of their own: both rows or neither are stored,
   * and the pair costs one commit. Streams that joined the stream's last batch are locked with it up
   * front; one that joins unexpectedly costs one more round trip.
   */
  async function commit(stream: string, batch: Pending[]): Promise<void> {
    const groups: Array<{ stream: string; built: Array<Encoded & { pending: Pending }>; next: number }> = [];
    const refused = new Set<Pending>();
    const joined = new Map<string, Pending[]>();
    let client: pg.PoolClient | undefined;
    let broken: Error | undefined;
    try {
      client = await pool().connect();
      const expected = companions.get(stream) ?? [];
      const nexts = await lockStreams(client, [stream, ...expected], true);
      const first = nexts.get(stream)!;
      const head = first === 0 ? undefined : await headText(client, stream, first - 1);
      // Builds run synchronously: only appends they make themselves see `joining`.
      joining = { stream, joined };
      let built: Array<Encoded & { pending: Pending }>;
      try {
        built = buildAll(batch, head, first, refused);
      } finally {
        joining = undefined;
      }
      groups.push({ stream, built, next: first + built.length });
      rememberCompanions(stream, [...joined.keys()]);
      const unlocked = [...joined.keys()].filter((s) => !nexts.has(s));
      if (unlocked.length > 0) for (const [s, n] of await lockStreams(client, unlocked, false)) nexts.set(s, n);
      for (const [other, pendings] of joined) {
        const start = nexts.get(other)!;
        const rows = buildAll(pendings, start === 0 ? undefined : await headText(client, other, start - 1), start, refused);
        if (rows.length > 0) groups.push({ stream: other, built: rows, next: start + rows.length });
      }
      const writing = groups.filter((g) => g.built.length > 0);
      if (writing.length === 0) await client.query('COMMIT');
      else await writeAndCommit(client, writing);
    } catch (error) {
      if (client !== undefined) {
        try {
          await client.query('ROLLBACK');
        } catch (rollbackError) {
          broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
        }
      }
      for (const pending of batch) if (!refused.has(pending)) pending.reject(error);
      for (const pendings of joined.values()) for (const pending of pendings) if (!refused.has(pending)) pending.reject(error);
      return;
    } finally {
      client?.release(broken);
    }
    for (const group of groups) {
      const last = group.built.at(-1);
      if (last !== undefined) remember(group.stream, last.row.seq, last.text);
    }
    for (const group of groups) for (const { pending, row } of group.built) pending.resolve(row);
  }

  /** The streams that joined `stream`'s last batch, to lock with its next one. */
  function rememberCompanions(stream: string, joinedStreams: string[]): void {
    const before = companions.get(stream);
    if (joinedStreams.length === 0 && before === undefined) return;
    companions.delete(stream);
    if (joinedStreams.length > 0) companions.set(stream, joinedStreams.slice(0, MAX_COMPANIONS));
    if (companions.size > MAX_CACHED_HEADS) companions.delete(companions.keys().next().value!);
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
        if (joining !== undefined && joining.stream !== stream) {
          const list = joining.joined.get(stream);
          if (list === undefined) joining.joined.set(stream, [{ build, resolve, reject }]);
          else list.push({ build, resolve, reject });
          return;
        }
        const queued = queues.get(stream);
        if (queued !== undefined) return void queued.push({ build, resolve, reject });
        queues.set(stream, [{ build, resolve, reject }]);
        void drainQueue(stream);
      });
    },
    /** Forgets remembered heads (the store is closing). */
    reset(): void {
      heads.clear();
      companions.clear();
    },
  };
}
