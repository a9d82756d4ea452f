import type pg from 'pg';
import { inTransaction, type Tables } from './sql.js';

/** One schema change: `sql` returns the statements for the store's tables. Never edit a released one; add the next. */
export interface Migration {
  version: number;
  name: string;
  sql: (t: Tables) => string;
}

/**
 * The schema, oldest first. JSON goes in `json` columns, not `jsonb`: `json` keeps the text as written,
 * so records come back with their keys in the order they were stored (as on lowdb) and strings may hold
 * U+0000, which `jsonb` refuses. Nothing queries inside the JSON; the fields reads filter on (seq, tick,
 * type) have columns of their own.
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'documents and logs',
    sql: (t) => `
      CREATE TABLE IF NOT EXISTS ${t.docs} (
        collection text NOT NULL,
        id text NOT NULL,
        pos bigint GENERATED ALWAYS AS IDENTITY,
        body json NOT NULL,
        PRIMARY KEY (collection, id)
      );
      CREATE INDEX IF NOT EXISTS docs_collection_pos ON ${t.docs} (collection, pos);
      CREATE TABLE IF NOT EXISTS ${t.logHeads} (
        stream text PRIMARY KEY,
        next_seq bigint NOT NULL DEFAULT 0
      );
      CREATE TABLE IF NOT EXISTS ${t.logRows} (
        stream text NOT NULL,
        seq bigint NOT NULL,
        tick double precision NOT NULL,
        type text NOT NULL,
        body json NOT NULL,
        PRIMARY KEY (stream, seq)
      );
      CREATE INDEX IF NOT EXISTS log_rows_stream_tick ON ${t.logRows} (stream, tick);
      CREATE INDEX IF NOT EXISTS log_rows_stream_type ON ${t.logRows} (stream, type, seq);
    `,
  },
];

/** First key of the advisory lock that serializes migrations (ASCII "core"); the second is the schema's hash. */
const MIGRATION_LOCK = 0x636f7265;

/**
 * Brings the schema up to the latest version, in one transaction under an advisory lock, so two
 * processes starting at once apply each migration once. Refuses a schema that a newer server migrated.
 * Returns the versions applied now.
 */
export async function migrate(pool: pg.Pool, t: Tables, migrations: readonly Migration[] = MIGRATIONS): Promise<number[]> {
  return inTransaction(pool, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [MIGRATION_LOCK, t.schema]);
    // Only when missing: CREATE SCHEMA needs the CREATE privilege on the database even with IF NOT EXISTS.
    const schema = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [t.schemaName]);
    if (schema.rowCount === 0) await client.query(`CREATE SCHEMA ${t.schema}`);
    await client.query(`
      CREATE TABLE IF NOT EXISTS ${t.version} (
        version integer PRIMARY KEY,
        name text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now()
      )`);
    const { rows } = await client.query<{ version: number | null }>(`SELECT max(version) AS version FROM ${t.version}`);
    const current = rows[0]?.version ?? 0;
    const latest = migrations.at(-1)?.version ?? 0;
    if (current > latest) {
      throw new Error(
        `the database schema ${t.schema} is at version ${current}, newer than this server knows (${latest}); run a newer server or another DATABASE_SCHEMA`,
      );
    }
    const applied: number[] = [];
    for (const migration of migrations) {
      if (migration.version <= current) continue;
      await client.query(migration.sql(t));
      await client.query(`INSERT INTO ${t.version} (version, name) VALUES ($1, $2)`, [migration.version, migration.name]);
      applied.push(migration.version);
    }
    return applied;
  });
}
