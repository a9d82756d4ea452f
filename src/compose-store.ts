import type { Config } from './config.js';
import type { Logger } from './log.js';
import { createLowdbStore } from './storage/lowdb/lowdb.store.js';
import { createPostgresStore } from './storage/postgres/postgres.store.js';
import { logSessionEvents } from './storage/postgres/pg-session-log.js';
import type { Store } from './storage/port.js';

/** The store the configuration names: PostgreSQL when a database URL is set, else lowdb files in the data directory. */
export function createStoreFor(config: Config, log: Logger): Store {
  if (config.databaseUrl) {
    return createPostgresStore({
      connectionString: config.databaseUrl,
      schema: config.databaseSchema,
      onError: (err) => log.error('database connection failed', { err }),
      onSessionEvent: logSessionEvents(log),
    });
  }
  return createLowdbStore({
    ...config.lowdb,
    dataDir: config.dataDir,
    onWarning: (w) => log.warn('storage repaired at open', { ...w }),
  });
}
