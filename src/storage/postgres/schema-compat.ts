import type pg from 'pg';
import type { Tables } from './sql.js';

/**
 * Rolling upgrades on PostgreSQL. During a deploy, processes of two builds share one schema: the first
 * new process migrates it, older ones keep running (and may restart) beside it. Whether an older build
 * may still write a newer schema is decided by the migration that made it newer, not guessed: each
 * migration declares `writableFrom`, the oldest build (named by the newest migration it knows) that
 * still keeps every promise of the store on the schema once the migration is applied. It is stored in
 * the migration's `schema_version` row, so an older build, which cannot know the newer migration,
 * reads the rule from the database.
 */

/** The version table's column holding each applied migration's `writableFrom` (NULL on rows written before it existed). */
const COLUMN = 'writable_from';

/** What a migration declares; a migration that declares nothing may be written only by builds that know it. */
export interface WritableFrom {
  version: number;
  writableFrom?: number;
}

/** The oldest build that may still write once `migration` is applied: as declared, never above the migration itself. */
export function writableFromOf(migration: WritableFrom): number {
  return Math.min(migration.writableFrom ?? migration.version, migration.version);
}

/** Where the schema stands for this build: migrate it (`current <= known`), or run beside a newer build on it. */
export interface SchemaStanding {
  /** Newest migration applied to the schema (0 for a new one). */
  current: number;
  /** Newest migration this build knows. */
  known: number;
  /** The oldest build that may write the schema as it is now (the highest `writable_from` applied). */
  writableFrom: number;
}

/**
 * Adds the `writable_from` column when missing (every build from this one on does, inside the migration
 * transaction and lock), fills it on rows of migrations this build knows, and reads where the schema
 * stands. A row still without it (a migration this build does not know, applied by a build before the
 * rule) counts as its own version: an unknown migration is never assumed compatible.
 */
export async function readSchemaStanding(client: pg.PoolClient, t: Tables, migrations: readonly WritableFrom[]): Promise<SchemaStanding> {
  await client.query(`ALTER TABLE ${t.version} ADD COLUMN IF NOT EXISTS ${COLUMN} integer`);
  // Rows a build before this rule wrote carry no declaration: record this build's, so older builds that
  // do not know those migrations read it from the database from now on.
  await client.query(
    `UPDATE ${t.version} AS v SET ${COLUMN} = d.writable_from
       FROM unnest($1::int[], $2::int[]) AS d (version, writable_from)
      WHERE v.version = d.version AND v.${COLUMN} IS NULL`,
    [migrations.map((m) => m.version), migrations.map(writableFromOf)],
  );
  const { rows } = await client.query<{ version: number; writable_from: number | null }>(`SELECT version, ${COLUMN} AS writable_from FROM ${t.version}`);
  const declared = new Map(migrations.map((m) => [m.version, writableFromOf(m)]));
  let current = 0;
  let writableFrom = 0;
  for (const row of rows) {
    current = Math.max(current, row.version);
    writableFrom = Math.max(writableFrom, row.writable_from ?? declared.get(row.version) ?? row.version);
  }
  return { current, known: migrations.at(-1)?.version ?? 0, writableFrom };
}

/**
 * Refuses to run on a schema a newer build migrated beyond what this build may write, with one line
 * saying why and what to do; returns quietly when this build knows the schema or the newer migrations
 * declared it compatible (then this build keeps every promise on it and needs no migration).
 */
export function assertWritable(t: Tables, s: SchemaStanding): void {
  if (s.current <= s.known || s.writableFrom <= s.known) return;
  throw new Error(
    `the database schema ${t.schema} is at version ${s.current}, newer than this server knows (${s.known}), and its migrations let only servers ` +
      `that know version ${s.writableFrom} or later write it: finish the upgrade with the newer server (stop this one), or use another DATABASE_SCHEMA`,
  );
}
