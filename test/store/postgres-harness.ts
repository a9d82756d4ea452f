import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { createPostgresStore, type PostgresStoreOptions } from '../../src/storage/postgres/postgres.store.js';
import type { Store } from '../../src/storage/port.js';
import type { StoreHarness } from './store-harness.js';

/** The database the PostgreSQL tests use, or undefined when they are to be skipped. */
export const databaseUrl: string | undefined = process.env.DATABASE_URL || undefined;

/** Why the PostgreSQL tests did not run, shown as the name of the skipped suite. */
export const SKIP_REASON = 'PostgreSQL tests skipped: set DATABASE_URL (e.g. postgres://postgres@127.0.0.1:5432/test) to run them';

/** A schema name no other test uses. */
export function uniqueSchema(prefix = 'test'): string {
  return `${prefix}_${randomBytes(6).toString('hex')}`;
}

/** Drops a schema and everything in it, over a connection of its own. */
export async function dropSchema(schema: string, url = databaseUrl!): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema.replaceAll('"', '""')}" CASCADE`);
  } finally {
    await client.end();
  }
}

/**
 * A PostgreSQL store, opened on a fresh schema of its own; `open` makes another store over the same
 * schema (another process, as far as the database can tell); `cleanup` closes them all and drops the schema.
 */
export async function makePostgresHarness(options: Partial<PostgresStoreOptions> = {}): Promise<StoreHarness & { schema: string; open: () => Promise<Store> }> {
  const schema = uniqueSchema();
  const make = (): Store => createPostgresStore({ connectionString: databaseUrl!, ...options, schema });
  const opened: Store[] = [];
  const open = async (): Promise<Store> => {
    const store = make();
    opened.push(store);
    await store.open();
    return store;
  };
  let current = await open();
  return {
    schema,
    store: current,
    open,
    async reopen() {
      await current.close();
      current = await open();
      return current;
    },
    async cleanup() {
      await Promise.all(opened.map((store) => store.close()));
      await dropSchema(schema);
    },
  };
}
