import type pg from 'pg';
import { createStoreLifecycle } from '../lifecycle.js';
import type { Store } from '../port.js';
import { migrate } from './migrations.js';
import { createPgDocs } from './pg-docs.js';
import { createPgLogs } from './pg-logs.js';
import { createPgRunner } from './pg-context.js';
import { createDbHealth } from './pg-health.js';
import { createPgLocks, lockSlots } from './pg-locks.js';
import { createPgPool } from './pg-pool.js';
import { createPgSession, type SessionEvent } from './pg-session.js';
import { inTransaction, tablesIn } from './sql.js';

export interface PostgresStoreOptions {
  /** `postgres://user@host:port/database`, as `DATABASE_URL` gives it. */
  connectionString: string;
  /** Schema holding the tables, created at open when missing (default `public`). */
  schema?: string;
  /** Most connections the pool opens (default 10). */
  maxConnections?: number;
  /** Told about errors of idle pooled connections (the server restarted, the network dropped). */
  onError?: (error: Error) => void;
  /** Told of each loss, failed reconnect and return of the session (LISTEN) connection, for the log. */
  onSessionEvent?: (event: SessionEvent) => void;
  /** The pause before reconnect try `attempt` of the session connection (default: exponential, jittered, capped at 5 s). */
  reconnectBackoff?: (attempt: number) => number;
  /** Longest wait for a pooled connection before a call fails as unavailable (default 5000 ms). */
  connectTimeoutMs?: number;
}

/**
 * The shared store: documents and logs in PostgreSQL tables, so several server processes can use one
 * database. Appends to a stream are serialized by a row lock on the stream's `log_heads` row in the
 * transaction that inserts the row; document updates by `SELECT ... FOR UPDATE`. `open` applies the
 * schema migrations (see `migrations.ts`); `close` waits for accepted calls, then ends the pool.
 */
export function createPostgresStore(options: PostgresStoreOptions): Store {
  const tables = tablesIn(options.schema ?? 'public');
  const maxConnections = options.maxConnections ?? 10;
  let pool: pg.Pool | undefined;
  let created: pg.Pool | undefined;
  const openPool = (): pg.Pool => {
    if (pool === undefined) throw new Error('the store is not open');
    return pool;
  };
  const lifecycle = createStoreLifecycle({
    open: async () => {
      created = createPgPool({
        connectionString: options.connectionString,
        max: maxConnections,
        connectTimeoutMs: options.connectTimeoutMs ?? 5_000,
        onError: (error) => options.onError?.(error),
      });
      await migrate(created, tables);
      await session.open();
      pool = created;
    },
    abort: async () => {
      health.stop();
      await session.close();
      await created?.end().catch(() => undefined);
      created = undefined;
    },
    close: async () => {
      // Published messages are writes too: they go out before the pool they are sent on ends.
      await session.flush();
      const ending = pool;
      pool = undefined;
      created = undefined;
      logs.reset();
      health.stop();
      // A holder still working would keep its pooled connection, and `end` would wait for it forever.
      locks.abortAll();
      await session.close();
      await ending?.end();
    },
  });
  // Identifies this store's lock transactions: another store's calls made inside one never join it.
  const owner = {};
  const db = createPgRunner(owner, openPool, inTransaction);
  const health = createDbHealth(() => pool);
  const docs = createPgDocs({ db, tables });
  const logs = createPgLogs({ pool: openPool, db, tables });
  const locks = createPgLocks({ owner, schemaName: tables.schemaName, pool: openPool, maxHeld: lockSlots(maxConnections) });
  const session = createPgSession({
    connectionString: options.connectionString,
    schemaName: tables.schemaName,
    pool: openPool,
    tx: db.tx,
    ...(options.onError ? { onError: options.onError } : {}),
    ...(options.onSessionEvent ? { onEvent: options.onSessionEvent } : {}),
    ...(options.reconnectBackoff ? { backoff: options.reconnectBackoff } : {}),
  });

  return {
    backend: 'postgres',
    docs: lifecycle.guard(health.wrap(docs)),
    logs: lifecycle.guard(health.wrap(logs.api)),
    locks: health.wrap(locks),
    pubsub: session.pubsub,
    open: lifecycle.open,
    close: lifecycle.close,
    isOpen: lifecycle.isOpen,
    status: () => {
      const sessionCheck = session.check();
      const database = lifecycle.isOpen() ? health.check() : { ok: false, detail: 'not open' };
      return { ready: database.ok && sessionCheck.ok, checks: { database, session: sessionCheck } };
    },
  };
}
