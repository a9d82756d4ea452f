import { AsyncLocalStorage } from 'node:async_hooks';
import type pg from 'pg';
import type { CommitScope } from '../../lib/commit-scope.js';

/**
 * The transaction a lock holder's work runs in (see `pg-locks.ts`): one pooled client, `BEGIN`, the
 * advisory xact locks taken on it, every store call the work makes, `COMMIT`. Calls are run one at a
 * time on the client (a transaction is one statement stream); a call that must be able to fail alone
 * runs in a SAVEPOINT. `done` once the transaction ended: calls that outlive it (work started by the
 * holder and not awaited) go to the pool as if made outside.
 */
export interface TxContext {
  /** The store the transaction belongs to: another store's calls never join it. */
  owner: object;
  client: pg.PoolClient;
  /** Lock keys held by the transaction (re-entrant). */
  keys: Set<string>;
  scope: CommitScope;
  /** Nested lock runs started in the transaction, awaited before it commits. */
  nested: Set<Promise<unknown>>;
  /** Tail of the statements queued on the client. */
  tail: Promise<unknown>;
  /** A statement failed outside a savepoint: the transaction is aborted and can only roll back. */
  aborted?: unknown;
  done: boolean;
  /** The client went back to the pool already (the store closed under the holder). */
  released?: boolean;
  /** Aborted when the connection is lost (or the store closes) while the holder works: told to `fn`. */
  lost: AbortController;
  /**
   * NOTIFY statements the holder published, sent in one round trip with COMMIT (a NOTIFY is delivered at
   * commit whenever it is sent, so holding it back changes nothing but the round trips).
   */
  notices?: string[];
  /** Run once the transaction ended, committed or not (what was kept for it is let go). */
  ended?: Array<() => void>;
}

const contexts = new AsyncLocalStorage<TxContext>();

/** The live lock transaction of `owner` the caller runs in, if any. */
export function currentTx(owner: object): TxContext | undefined {
  const tx = contexts.getStore();
  return tx !== undefined && tx.owner === owner && !tx.done ? tx : undefined;
}

/** Runs `work` with `tx` as the current lock transaction. */
export function runInTx<T>(tx: TxContext, work: () => Promise<T>): Promise<T> {
  return contexts.run(tx, work);
}

/**
 * Queues `work` on the transaction's client, after everything queued before it. A failure of `work`
 * marks the transaction aborted unless `contained` (it rolled back to a savepoint of its own).
 */
export function onTx<T>(tx: TxContext, work: (client: pg.PoolClient) => Promise<T>, contained = false): Promise<T> {
  const run = async () => {
    if (tx.aborted !== undefined) throw tx.aborted;
    try {
      return await work(tx.client);
    } catch (error) {
      if (!contained) tx.aborted ??= error;
      throw error;
    }
  };
  const result = tx.tail.then(run, run);
  tx.tail = result.catch(() => undefined);
  return result;
}

/**
 * Runs `work` in a SAVEPOINT of the transaction: released when it resolves, rolled back to when it
 * throws, so the failure is `work`'s own (a unique violation, a build that threw) and the transaction
 * goes on. If even the rollback fails (the connection died), the transaction is aborted.
 */
export function inSavepoint<T>(tx: TxContext, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  return onTx(
    tx,
    async (client) => {
      await client.query('SAVEPOINT core_op');
      try {
        const result = await work(client);
        await client.query('RELEASE SAVEPOINT core_op');
        return result;
      } catch (error) {
        try {
          await client.query('ROLLBACK TO SAVEPOINT core_op');
        } catch (rollbackError) {
          tx.aborted ??= rollbackError;
        }
        throw error;
      }
    },
    true,
  );
}

/**
 * Where a statement of `owner` goes: onto the caller's lock transaction when it runs in one, else the
 * pool. `transaction` runs several statements atomically: a savepoint inside a lock transaction, a
 * transaction of its own outside.
 */
export interface PgRunner {
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string | pg.QueryConfig, values?: unknown[]): Promise<pg.QueryResult<R>>;
  transaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T>;
  /** Runs reads with sorting switched off for them only (`SET LOCAL enable_sort = off`, undone after). */
  unsorted<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T>;
  /** The caller's live lock transaction, if any. */
  tx(): TxContext | undefined;
}

export function createPgRunner(
  owner: object,
  pool: () => pg.Pool,
  inTransaction: <T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>) => Promise<T>,
): PgRunner {
  return {
    query<R extends pg.QueryResultRow>(text: string | pg.QueryConfig, values?: unknown[]) {
      const tx = currentTx(owner);
      if (tx === undefined) return pool().query<R>(text as string, values);
      return onTx(tx, (client) => client.query<R>(text as string, values));
    },
    transaction(work) {
      const tx = currentTx(owner);
      return tx === undefined ? inTransaction(pool(), work) : inSavepoint(tx, work);
    },
    unsorted(work) {
      const tx = currentTx(owner);
      if (tx === undefined) {
        return inTransaction(pool(), async (client) => {
          await client.query('SET LOCAL enable_sort = off');
          return work(client);
        });
      }
      // A setting made in a savepoint outlives its release: put it back for the rest of the transaction.
      return onTx(tx, async (client) => {
        const { rows } = await client.query<{ was: string }>("SELECT current_setting('enable_sort') AS was, set_config('enable_sort', 'off', true)");
        try {
          return await work(client);
        } finally {
          await client.query("SELECT set_config('enable_sort', $1, true)", [rows[0]?.was ?? 'on']);
        }
      });
    },
    tx: () => currentTx(owner),
  };
}
