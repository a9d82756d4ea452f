import type pg from 'pg';
import { openCommitScope } from '../../lib/commit-scope.js';
import { createLocalLocks } from '../local-coordination.js';
import { StoreUnavailableError, type LockStore, type TryRunResult } from '../port.js';
import { currentTx, onTx, runInTx, type TxContext } from './pg-context.js';
import { toStoreError } from './pg-errors.js';
import { advisoryKey } from './pg-session.js';

/** Longest wait between two tries of a lock held elsewhere. */
const MAX_LOCK_POLL_MS = 100;

export interface PgLocksOptions {
  /** The store the transactions belong to (see `TxContext.owner`). */
  owner: object;
  /** Locks are scoped to the schema, so stores on two schemas of one database never meet. */
  schemaName: string;
  pool: () => pg.Pool;
  /** Most lock transactions open at once: below the pool's size, so reads outside locks always find a connection. */
  maxHeld: number;
}

/**
 * How many lock transactions a pool of `size` connections may hold at once: a quarter (at least one)
 * stays free for calls outside locks. A pool of one or two has no room to spare: every connection may
 * hold a lock (a process holds its audit writer lock for its whole life, and would otherwise leave no
 * slot to the others).
 */
export function lockSlots(size: number): number {
  return size <= 2 ? Math.max(1, size) : size - Math.max(1, Math.floor(size / 4));
}

/** A counting semaphore: `acquire` resolves when one of `size` slots is free. */
function createSlots(size: number) {
  let free = size;
  const waiting: Array<() => void> = [];
  return {
    async acquire(): Promise<void> {
      if (free > 0) {
        free -= 1;
        return;
      }
      await new Promise<void>((resolve) => waiting.push(resolve));
    },
    release(): void {
      const next = waiting.shift();
      if (next) next();
      else free += 1;
    },
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Store-wide locks fenced by the writing transaction. A holder's work runs in one transaction on one
 * pooled client that holds `pg_try_advisory_xact_lock(key)`: every store call the work makes joins that
 * transaction (see `pg-context.ts`), so its writes commit only while the lock is held. Should the
 * connection die, PostgreSQL frees the lock and rolls the writes back together: the next holder never
 * sees half of them, nor can both commit. In front, a keyed mutex lets one holder per key per process try.
 * Waiting for a lock held elsewhere polls with backoff and holds no connection between tries. At most
 * `maxHeld` lock transactions are open at once, so holders never take the whole pool.
 */
export function createPgLocks(options: PgLocksOptions): LockStore & { abortAll(): void } {
  const local = createLocalLocks();
  /** Lock transactions open now. */
  const open = new Set<TxContext>();
  const slots = createSlots(options.maxHeld);
  const lockSql = (key: string) => `SELECT pg_try_advisory_xact_lock(${advisoryKey(options.schemaName, key)}::bigint) AS ok`;

  /** One try in a transaction of its own: `fn` runs in it if the lock was free. */
  async function attempt<T>(key: string, fn: (lost: AbortSignal) => Promise<T>): Promise<TryRunResult<T>> {
    await slots.acquire();
    let client: pg.PoolClient | undefined;
    let broken: Error | undefined;
    let tx: TxContext | undefined;
    // A checked-out client has no error listener of the pool's: a connection cut while the holder works
    // between statements would otherwise crash the process. Its next statement (or COMMIT) fails.
    const onLost = (error: Error) => {
      if (tx === undefined) return;
      tx.aborted ??= error;
      tx.lost.abort(error);
    };
    try {
      client = await options.pool().connect();
      client.on('error', onLost);
      const results = (await client.query(`BEGIN; ${lockSql(key)}`)) as unknown as Array<pg.QueryResult<{ ok: boolean }>>;
      if (results.at(-1)?.rows[0]?.ok !== true) {
        await client.query('ROLLBACK');
        return { ran: false };
      }
      tx = {
        owner: options.owner,
        client,
        keys: new Set([key]),
        scope: openCommitScope(),
        nested: new Set(),
        tail: Promise.resolve(),
        done: false,
        lost: new AbortController(),
      };
      const own = tx;
      open.add(own);
      const value = await runInTx(own, () => own.scope.run(() => fn(own.lost.signal)));
      // Work the holder started under its lock and did not await still belongs to the transaction.
      while (own.nested.size > 0) await Promise.allSettled([...own.nested]);
      // Calls made from now on go to the pool; those queued already run before COMMIT.
      own.done = true;
      await own.tail;
      if (own.aborted !== undefined) throw own.aborted;
      const notices = own.notices?.splice(0) ?? [];
      const ended = (await client.query([...notices, 'COMMIT'].join('; '))) as unknown as pg.QueryResult | pg.QueryResult[];
      const committed = Array.isArray(ended) ? ended.at(-1)! : ended;
      // COMMIT of a transaction a statement aborted answers ROLLBACK, without an error.
      if (committed.command !== 'COMMIT') throw new Error('the lock transaction was rolled back by the database');
      own.scope.commit();
      return { ran: true, value };
    } catch (error) {
      if (tx !== undefined) {
        tx.done = true;
        // Statements still queued must not run after the ROLLBACK, outside the transaction.
        tx.aborted ??= error;
        await tx.tail;
        tx.scope.discard();
      }
      if (client !== undefined) {
        try {
          await client.query('ROLLBACK');
        } catch (rollbackError) {
          broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
        }
      }
      throw toStoreError(error);
    } finally {
      if (tx !== undefined) {
        open.delete(tx);
        for (const end of tx.ended?.splice(0) ?? []) end();
      }
      client?.off('error', onLost);
      if (tx?.released !== true) client?.release(broken);
      slots.release();
    }
  }

  /** A try inside a lock transaction: the key's xact lock is taken on the same client (re-entrant). */
  async function attemptNested<T>(tx: TxContext, key: string, fn: (lost: AbortSignal) => Promise<T>): Promise<TryRunResult<T>> {
    if (!tx.keys.has(key)) {
      const { rows } = await onTx(tx, (client) => client.query<{ ok: boolean }>(lockSql(key)));
      if (rows[0]?.ok !== true) return { ran: false };
      // An xact lock is held until the transaction ends: the key stays this transaction's.
      tx.keys.add(key);
    }
    const running = fn(tx.lost.signal);
    tx.nested.add(running);
    try {
      return { ran: true, value: await running };
    } finally {
      tx.nested.delete(running);
    }
  }

  async function poll<T>(key: string, fn: (lost: AbortSignal) => Promise<T>, tx: TxContext | undefined): Promise<T> {
    let wait = 5;
    for (;;) {
      const outcome = tx === undefined ? await attempt(key, fn) : await attemptNested(tx, key, fn);
      if (outcome.ran) return outcome.value;
      await sleep(wait);
      wait = Math.min(MAX_LOCK_POLL_MS, wait * 2);
    }
  }

  return {
    /**
     * Rolls back every lock transaction still open (the store is closing): its connection is closed,
     * which frees its locks, and its holder's call fails; nothing of its work is stored.
     */
    abortAll(): void {
      for (const tx of open) {
        tx.aborted ??= new StoreUnavailableError('unreachable', 'the store closed while this lock was held; nothing of its work was stored');
        tx.done = true;
        tx.released = true;
        tx.lost.abort(tx.aborted);
        tx.client.release(new Error('the store closed while a lock was held'));
      }
      open.clear();
    },
    async tryRun(key, fn) {
      const tx = currentTx(options.owner);
      if (tx?.keys.has(key)) return attemptNested(tx, key, fn);
      if (local.held(key)) return { ran: false };
      const outcome = await local.tryRun(key, () => (tx === undefined ? attempt(key, fn) : attemptNested(tx, key, fn)));
      return outcome.ran ? outcome.value : outcome;
    },
    run(key, fn) {
      const tx = currentTx(options.owner);
      if (tx?.keys.has(key)) return attemptNested(tx, key, fn).then((outcome) => (outcome as { value: Awaited<ReturnType<typeof fn>> }).value);
      return local.run(key, () => poll(key, fn, tx));
    },
  };
}
