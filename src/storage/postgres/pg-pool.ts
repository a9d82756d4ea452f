import pg from 'pg';

export interface PgPoolOptions {
  connectionString: string;
  max: number;
  connectTimeoutMs: number;
  /** Told of every error of a pooled connection, idle or checked out, once each. */
  onError: (error: Error) => void;
}

/**
 * The store's connection pool. Every client it opens has an `error` listener from the moment it is
 * connected until it is gone: without one, an error event crashes the process. pg-pool listens on idle
 * clients only, and removes its listener when it hands a client out, before the caller's `await
 * pool.connect()` resumes and attaches its own; an ErrorResponse parsed in that gap (a backend
 * terminated as it finished starting, its FATAL error in the same chunk as ReadyForQuery) was an
 * `Unhandled 'error' event`. The listener here is attached in the pool's `connect` event, which comes
 * before that removal. It reports errors of checked-out clients (idle ones are reported by the pool's
 * `error` event) and does nothing else: the errored client is not queryable, so the holder's next
 * statement fails as unavailable, and the pool discards it when it is released.
 */
export function createPgPool(options: PgPoolOptions): pg.Pool {
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: options.max,
    application_name: 'core-server',
    // A request never hangs on a database that does not answer: it fails as unavailable (503).
    connectionTimeoutMillis: options.connectTimeoutMs,
    // TCP keepalive: a connection to a database host that went away fails instead of hanging.
    keepAlive: true,
  });
  const checkedOut = new WeakSet<pg.PoolClient>();
  pool.on('acquire', (client) => void checkedOut.add(client));
  pool.on('release', (_error, client) => void checkedOut.delete(client));
  pool.on('connect', (client) => {
    client.on('error', (error) => {
      if (checkedOut.has(client)) options.onError(error);
    });
  });
  // An idle connection's error (server restart, terminated backend): the pool discards the client.
  pool.on('error', (error) => options.onError(error));
  return pool;
}
