import type pg from 'pg';
import { afterCommit } from '../../lib/commit-scope.js';
import { LastOfTypeMovedError, type LastOfType, type LogRow, type RowInput } from '../port.js';
import { encode, type Encoded } from './pg-log-sql.js';
import { EXPECTATION_FAILED, writeAndCommitSql, writeIfUnmovedSql, type WrittenGroup } from './pg-log-writes.js';
import { onTx, type PgRunner, type TxContext } from './pg-context.js';
import { lockHeads, type LastRows } from './pg-log-heads.js';
import type { Tables } from './sql.js';

type Build = (head: LogRow | undefined, seq: number) => RowInput<LogRow>;

interface Pending {
  build: Build;
  expect: LastOfType | undefined;
  resolve: (row: LogRow) => void;
  reject: (error: unknown) => void;
}

/** Thrown to an append made by a build whose run was discarded (the batch was built again). */
class SupersededAppend extends Error {
  constructor() {
    super('append superseded: the build that made it ran again');
  }
}

/** After a head was found moved, how long a stream's batches lock first instead of trusting memory. */
const CONTENDED_MS = 2_000;

type Built = Array<Encoded & { pending: Pending }>;

/** One stream's rows in a batch (see WrittenGroup), each with the append it answers. */
interface Group extends WrittenGroup {
  built: Built;
}

/** One run of a batch's builds, with what they refused and the appends they made to other streams. */
interface Attempt {
  groups: Group[];
  refused: Map<Pending, unknown>;
  joined: Map<string, Pending[]>;
}

/** Most rows written by one transaction; a longer queue is committed in several. */
const MAX_BATCH = 500;
/** Streams whose last written row this process remembers, to skip re-reading it at the next append. */
const MAX_CACHED_HEADS = 1024;
/** Most streams locked up front beside a batch's own (see commit). */
const MAX_COMPANIONS = 4;

export interface LogAppenderOptions {
  pool: () => pg.Pool;
  /** Tells whether the caller runs in a lock transaction (its appends are written in it). */
  db: PgRunner;
  tables: Tables;
}

/** Opens the savepoint an append inside a lock transaction runs in, and ends it (see commit). */
const SAVEPOINT = 'SAVEPOINT core_append; ';
const RELEASE = 'RELEASE SAVEPOINT core_append';

/**
 * Appends with group commit. Appends to one stream queue in this process; each transaction takes the
 * whole queue, locks the stream's `log_heads` row (`FOR UPDATE`, so appends from other processes wait
 * too), builds every queued row on the head it reads after the lock, inserts them in one statement and
 * moves `next_seq` on: two round trips per batch (see lockHeads and writeAndCommitSql), or one while this
 * process is the stream's only writer (see writeIfUnmovedSql). A build that throws rejects only its own
 * append; a failed commit rejects the batch.
 */
export function createLogAppender({ pool, db, tables: t }: LogAppenderOptions) {
  const queues = new Map<string, Pending[]>();
  /** Last row written per stream: rows never change, so it is valid whenever its seq is `next_seq - 1`. */
  const heads = new Map<string, { seq: number; text: string }>();
  /** Streams another process was seen appending to, until when their batches lock first (see commit). */
  const contended = new Map<string, number>();
  /** Per stream, the streams whose appends joined its last batch (see commit). */
  const companions = new Map<string, string[]>();
  /** Per stream, how many lock transactions here hold rows of it not yet committed. */
  const heldInTx = new Map<string, number>();
  /** Set while a batch's builds run: appends they make to other streams join that batch. */
  let joining: { stream: string; joined: Map<string, Pending[]> } | undefined;

  const headSql = { name: 'core_log_head', text: `SELECT body::text AS text FROM ${t.logRows} WHERE stream = $1 AND seq = $2` };

  async function headText(client: pg.PoolClient, stream: string, seq: number): Promise<string> {
    const cached = heads.get(stream);
    if (cached?.seq === seq) return cached.text;
    const { rows } = await client.query<{ text: string }>({ ...headSql, values: [stream, seq] });
    if (rows[0] === undefined) throw new Error(`log ${stream}: row ${seq} is missing below next_seq`);
    return rows[0].text;
  }

  function remember(stream: string, seq: number, text: string): void {
    heads.delete(stream);
    heads.set(stream, { seq, text });
    if (heads.size > MAX_CACHED_HEADS) heads.delete(heads.keys().next().value!);
  }

  /**
   * Builds `pending` rows on `head`, from `next`; a build that throws is recorded in `refused` (settled
   * later). Each build after the first gets the row the one before it returned, as the lowdb adapter
   * does (builds never change their head; parsing the text again cost a JSON.parse per row).
   */
  function buildAll(pendings: Pending[], head: string | undefined, next: number, refused: Map<Pending, unknown>, last?: LastRows): Built {
    const built: Built = [];
    let headRow = head === undefined ? undefined : (JSON.parse(head) as LogRow);
    for (const pending of pendings) {
      let encoded: Encoded;
      try {
        const { expect } = pending;
        if (expect !== undefined && (last?.last.get(expect.type) ?? -1) !== expect.lastSeq) throw new LastOfTypeMovedError(last?.stream ?? '', expect);
        encoded = encode(pending.build(headRow, next), next);
      } catch (error) {
        refused.set(pending, error);
        continue;
      }
      last?.last.set(encoded.row.type, encoded.row.seq);
      built.push({ ...encoded, pending });
      headRow = encoded.row;
      next += 1;
    }
    return built;
  }

  /** Runs the batch's builds on `head`, collecting the appends they make to other streams (see commit). */
  function buildBatch(stream: string, batch: Pending[], head: string | undefined, first: number, last?: LastRows): Attempt {
    const attempt: Attempt = { groups: [], refused: new Map(), joined: new Map() };
    // Builds run synchronously: only appends they make themselves see `joining`.
    joining = { stream, joined: attempt.joined };
    try {
      const built = buildAll(batch, head, first, attempt.refused, last);
      attempt.groups.push({ stream, built, next: first + built.length, expected: first });
    } finally {
      joining = undefined;
    }
    return attempt;
  }

  /** Builds the joined appends of `attempt`, each stream from the next seq and head `start` gives. */
  function buildJoined(attempt: Attempt, start: (stream: string) => { next: number; head: string | undefined }): void {
    for (const [other, pendings] of attempt.joined) {
      const at = start(other);
      const rows = buildAll(pendings, at.head, at.next, attempt.refused);
      attempt.groups.push({ stream: other, built: rows, next: at.next + rows.length, expected: at.next });
    }
  }

  /**
   * Where this process last wrote a stream, if it remembers, no other process was seen writing it lately,
   * and no lock transaction here holds rows of it not yet committed (the head it remembers is behind them).
   */
  function trusted(stream: string, now: number): { next: number; head: string } | undefined {
    if (heldInTx.has(stream)) return undefined;
    const cached = heads.get(stream);
    const until = contended.get(stream);
    if (until !== undefined) {
      if (until > now) return undefined;
      contended.delete(stream);
    }
    if (cached === undefined) return undefined;
    return { next: cached.seq + 1, head: cached.text };
  }

  /**
   * One transaction per batch. When this process remembers every stream's head and nobody else was seen
   * writing them lately, the batch is built on those heads and written in one round trip
   * (writeIfUnmovedSql); otherwise, or when that finds a head moved, it locks the heads and builds on what
   * it reads, in two round trips (lockHeads and writeAndCommitSql). Appends to other streams made by the
   * batch's builds while they run (a chain row's encrypted payload row) join the same transaction
   * instead of queueing for one of their own: both rows or neither are stored, and the pair costs one
   * commit. Streams that joined the stream's last batch are locked with it up front; one that joins
   * unexpectedly costs one more round trip. Builds may run twice (once per path); appends made by a
   * discarded run are rejected as superseded, never written.
   */
  async function commit(stream: string, batch: Pending[], tx?: TxContext): Promise<void> {
    let client: pg.PoolClient | undefined;
    let broken: Error | undefined;
    let done: Attempt | undefined;
    let failure: { attempt: Attempt | undefined; error: unknown } | undefined;
    const discarded: Attempt[] = [];
    // In a lock transaction the rows go into it, in a savepoint (so a failure is this append's alone);
    // built on the head this process remembers only while no lock transaction here holds newer rows of it.
    const begin = tx === undefined ? 'BEGIN; ' : SAVEPOINT;
    const end = tx === undefined ? 'COMMIT' : RELEASE;
    // Checked out, the client has no listener of the pool's: a cut connection would crash the process.
    const onLost = (error: Error) => void (broken ??= error);
    try {
      client = tx === undefined ? await pool().connect() : tx.client;
      if (tx === undefined) client.on('error', onLost);
      const now = Date.now();
      const expectations = batch.filter((p) => p.expect !== undefined).map((p) => p.expect!.type);
      // Expectations are checked on rows read under the lock, or on a remembered head in the writing statement.
      const last: LastRows | undefined = expectations.length === 0 ? undefined : { stream, types: new Set(expectations), last: new Map() };
      const mine = trusted(stream, now);
      // Held from now: another lock transaction here appending to the stream locks its head and waits,
      // rather than try the remembered head, wait for the row lock all the same, and find it moved.
      if (tx !== undefined) holdUntilEnd(tx, [stream]);
      if (mine !== undefined) {
        // Built as if each type's last row were where the batch's first append of it expects; the statement checks it.
        const assumed = new Map<string, number>();
        for (const { expect } of batch) if (expect !== undefined && !assumed.has(expect.type)) assumed.set(expect.type, expect.lastSeq);
        // The builds move their copy on as rows are built; the statement checks the map as assumed.
        const checked = last === undefined ? undefined : { ...last, last: assumed };
        const attempt = buildBatch(stream, batch, mine.head, mine.next, checked && { ...checked, last: new Map(assumed) });
        discarded.push(attempt);
        const known = [...attempt.joined.keys()].map((s) => [s, trusted(s, now)] as const);
        if (known.every(([, at]) => at !== undefined)) {
          const at = new Map(known);
          buildJoined(attempt, (s) => at.get(s)!);
          const writing = attempt.groups.filter((g) => g.built.length > 0);
          if (writing.length > 0) {
            try {
              await client.query(writeIfUnmovedSql(t, writing, begin, end, checked));
              done = attempt;
              discarded.pop();
            } catch (error) {
              await client.query(tx === undefined ? 'ROLLBACK' : 'ROLLBACK TO SAVEPOINT core_append');
              // The lock path decides what the expectation refuses; only a moved head says another process writes.
              if (!String((error as Error | undefined)?.message).includes(EXPECTATION_FAILED)) for (const g of attempt.groups) markContended(g.stream);
            }
          }
        }
      }
      if (done === undefined) {
        const expected = companions.get(stream) ?? [];
        const nexts = await lockHeads(client, t, [stream, ...expected], begin, last);
        const first = nexts.get(stream)!;
        const attempt = buildBatch(stream, batch, first === 0 ? undefined : await headText(client, stream, first - 1), first, last);
        failure = { attempt, error: undefined };
        const unlocked = [...attempt.joined.keys()].filter((s) => !nexts.has(s));
        if (unlocked.length > 0) for (const [s, n] of await lockHeads(client, t, unlocked, '')) nexts.set(s, n);
        const heads = new Map<string, string | undefined>();
        for (const other of attempt.joined.keys()) {
          const next = nexts.get(other)!;
          heads.set(other, next === 0 ? undefined : await headText(client, other, next - 1));
        }
        buildJoined(attempt, (s) => ({ next: nexts.get(s)!, head: heads.get(s) }));
        const writing = attempt.groups.filter((g) => g.built.length > 0);
        if (writing.length === 0) await client.query(end);
        else await client.query(writeAndCommitSql(t, writing, end));
        done = attempt;
        failure = undefined;
      }
      rememberCompanions(stream, [...done.joined.keys()]);
      if (tx !== undefined)
        holdUntilEnd(
          tx,
          done.groups.filter((g) => g.stream !== stream && g.built.length > 0).map((g) => g.stream),
        );
    } catch (error) {
      failure = { attempt: failure?.attempt, error };
      if (client !== undefined) {
        try {
          await client.query(tx === undefined ? 'ROLLBACK' : 'ROLLBACK TO SAVEPOINT core_append');
        } catch (rollbackError) {
          broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
          // The transaction's connection is gone: nothing more of it can be stored.
          if (tx !== undefined) tx.aborted ??= broken;
        }
      }
    } finally {
      if (tx === undefined) {
        client?.off('error', onLost);
        client?.release(broken);
      }
    }
    for (const attempt of discarded) {
      for (const pendings of attempt.joined.values()) for (const pending of pendings) pending.reject(new SupersededAppend());
    }
    if (failure !== undefined) {
      const refused = failure.attempt?.refused ?? new Map<Pending, unknown>();
      for (const [pending, error] of refused) pending.reject(error);
      for (const pending of batch) if (!refused.has(pending)) pending.reject(failure.error);
      for (const pendings of failure.attempt?.joined.values() ?? []) for (const pending of pendings) if (!refused.has(pending)) pending.reject(failure.error);
      return;
    }
    // Remembered once committed: in a lock transaction, after its COMMIT (never, should it roll back).
    const learned = done!.groups.flatMap((group) => {
      const last = group.built.at(-1);
      return last === undefined ? [] : [{ stream: group.stream, seq: last.row.seq, text: last.text }];
    });
    afterCommit(() => {
      for (const head of learned) remember(head.stream, head.seq, head.text);
    });
    for (const [pending, error] of done!.refused) pending.reject(error);
    for (const group of done!.groups) for (const { pending, row } of group.built) pending.resolve(row);
  }

  /** Streams with rows in a lock transaction here not yet ended, until it ends (see trusted). */
  function holdUntilEnd(tx: TxContext, streams: string[]): void {
    for (const stream of streams) {
      heldInTx.set(stream, (heldInTx.get(stream) ?? 0) + 1);
      (tx.ended ??= []).push(() => {
        const n = heldInTx.get(stream)! - 1;
        if (n === 0) heldInTx.delete(stream);
        else heldInTx.set(stream, n);
      });
    }
  }

  function markContended(stream: string): void {
    contended.delete(stream);
    contended.set(stream, Date.now() + CONTENDED_MS);
    if (contended.size > MAX_CACHED_HEADS) contended.delete(contended.keys().next().value!);
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
    append(stream: string, build: Build, expect?: LastOfType): Promise<LogRow> {
      if (typeof stream !== 'string' || stream.length === 0) return Promise.reject(new TypeError('stream name must be a non-empty string'));
      return new Promise<LogRow>((resolve, reject) => {
        const pending: Pending = { build, expect, resolve, reject };
        if (joining !== undefined && joining.stream !== stream) {
          // Joined rows are built on heads read without the expectation query (see commit).
          if (expect !== undefined) return reject(new TypeError(`log ${stream}: an append made by another append's build cannot carry an expectation`));
          const list = joining.joined.get(stream);
          if (list === undefined) joining.joined.set(stream, [pending]);
          else list.push(pending);
          return;
        }
        // In a lock transaction: written in it now, on its client (the process's queue commits elsewhere).
        const tx = db.tx();
        if (tx !== undefined) return void onTx(tx, () => commit(stream, [pending], tx), true).catch(reject);
        const queued = queues.get(stream);
        if (queued !== undefined) return void queued.push(pending);
        queues.set(stream, [pending]);
        void drainQueue(stream);
      });
    },
    /** Forgets remembered heads (the store is closing). */
    reset(): void {
      heads.clear();
      companions.clear();
      contended.clear();
    },
  };
}
