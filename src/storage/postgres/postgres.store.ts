import pg from 'pg';
import { createStoreLifecycle } from '../lifecycle.js';
import type { Store } from '../port.js';
import { migrate } from './migrations.js';
import { createPgDocs } from './pg-docs.js';
import { createPgLogs } from './pg-logs.js';
import { createPgSession } from './pg-session.js';
import { tablesIn } from './sql.js';

export interface PostgresStoreOptions {
  /** `postgres://user@host:port/database`, as `DATABASE_URL` gives it. */
  connectionString: string;
  /** Schema holding the tables, created at open when missing (default `public`). */
  schema?: string;
  /** Most connections the pool opens (default 10). */
  maxConnections?: number;
  /** Told about errors of idle pooled connections (the server restarted, the network dropped). */
  onError?: (error: Error) => void;
}

/**
 * The shared store: documents and logs in PostgreSQL tables, so several server processes can use one
 * database. Appends to a stream are serialized by a row lock on the stream's `log_heads` row in the
 * transaction that inserts the row; document updates by `SELECT ... FOR UPDATE`. `open` applies the
 * schema migrations (see `migrations.ts`); `close` waits for accepted calls, then ends the pool.
 */
export function createPostgresStore(options: PostgresStoreOptions): Store {
  const tables = tablesIn(options.schema ?? 'public');
  let pool: pg.Pool | undefined;
  let created: pg.Pool | undefined;
  const openPool = (): pg.Pool => {
    if (pool === undefined) throw new Error('the store is not open');
    return pool;
  };
  const lifecycle = createStoreLifecycle({
    open: async () => {
      created = new pg.Pool({
        connectionString: options.connectionString,
        max: options.maxConnections ?? 10,
        application_name: 'core-server',
        // TCP keepalive: a connection to a database host that went away fails instead of hanging.
        keepAlive: true,
      });
      // Without a listener, an idle connection's error (server restart) would crash the process.
      created.on('error', (error) => options.onError?.(error));
      await migrate(created, tables);
      await session.open();
      pool = created;
    },
    abort: async () => {
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
      await session.close();
      await ending?.end();
    },
  });
  const docs = createPgDocs({ pool: openPool, tables });
  const logs = createPgLogs({ pool: openPool, tables });
  const session = createPgSession({
    connectionString: options.connectionString,
    schemaName: tables.schemaName,
    pool: openPool,
    ...(options.onError ? { onError: options.onError } : {}),
  });

  return {
    backend: 'postgres',
    docs: lifecycle.guard(docs),
    logs: lifecycle.guard(logs.api),
    locks: session.locks,
    pubsub: session.pubsub,
    open: lifecycle.open,
    close: lifecycle.close,
    isOpen: lifecycle.isOpen,
    status: () => {
      const sessionCheck = session.check();
      const database = { ok: lifecycle.isOpen(), ...(lifecycle.isOpen() ? {} : { detail: 'not open' }) };
      return { ready: database.ok && sessionCheck.ok, checks: { database, session: sessionCheck } };
    },
  };
}
