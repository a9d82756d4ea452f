import pg from 'pg';
import { createInFlight } from '../lowdb/in-flight.js';
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
  let state: 'closed' | 'opening' | 'open' | 'closing' = 'closed';
  let opening: Promise<void> | undefined;
  let closing: Promise<void> | undefined;
  let pool: pg.Pool | undefined;
  const assertOpen = (): void => {
    if (state !== 'open') throw new Error('the store is not open');
  };
  const openPool = (): pg.Pool => {
    if (pool === undefined) throw new Error('the store is not open');
    return pool;
  };
  const docs = createPgDocs({ pool: openPool, tables });
  const logs = createPgLogs({ pool: openPool, tables });
  const inFlight = createInFlight(assertOpen);
  const session = createPgSession({
    connectionString: options.connectionString,
    schemaName: tables.schemaName,
    pool: openPool,
    ...(options.onError ? { onError: options.onError } : {}),
  });

  return {
    backend: 'postgres',
    docs: inFlight.guard(docs),
    logs: inFlight.guard(logs.api),
    locks: session.locks,
    pubsub: session.pubsub,
    open() {
      if (state === 'open') return Promise.resolve();
      if (state === 'closing') return Promise.reject(new Error('the store is closing'));
      opening ??= (async () => {
        state = 'opening';
        const created = new pg.Pool({
          connectionString: options.connectionString,
          max: options.maxConnections ?? 10,
          application_name: 'core-server',
          // TCP keepalive: a connection to a database host that went away fails instead of hanging.
          keepAlive: true,
        });
        // Without a listener, an idle connection's error (server restart) would crash the process.
        created.on('error', (error) => options.onError?.(error));
        try {
          await migrate(created, tables);
          await session.open();
          pool = created;
          state = 'open';
          closing = undefined;
        } catch (error) {
          state = 'closed';
          await session.close();
          await created.end().catch(() => undefined);
          throw error;
        } finally {
          opening = undefined;
        }
      })();
      return opening;
    },
    async close() {
      if (opening !== undefined) await opening.catch(() => undefined);
      if (state === 'open') {
        state = 'closing';
        closing = (async () => {
          try {
            await inFlight.drain();
          } finally {
            const ending = pool;
            pool = undefined;
            logs.reset();
            state = 'closed';
            await session.close();
            await ending?.end();
          }
        })();
      }
      await closing;
    },
    isOpen: () => state === 'open',
  };
}
