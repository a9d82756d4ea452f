import type pg from 'pg';
import { assertWritable, readSchemaStanding, writableFromOf } from './schema-compat.js';
import { inTransaction, type Tables } from './sql.js';

/**
 * The fields an ordered `find` reads from an index (migration 3): machines by genesis tick, activity
 * records by their last tick, checkpoints by the tick they were signed. Never edit: a new field needs
 * a new migration.
 */
export const ORDERED_FIELDS = ['genesis_tick', 'last_tick', 'signed_tick'] as const;

/** The fields migration 4 indexes for ordered finds: seats by last heartbeat (the census), proposals by creation. */
export const ORDERED_FIELDS_4 = ['last_heartbeat_tick', 'created_ms'] as const;

/**
 * The fields whose values migration 5 counts per collection, so `count` with one of them (the public
 * machines, the machines by status) reads a few counter rows instead of every match. Never edit: a new
 * field needs a new migration.
 */
export const COUNTED_FIELDS = ['is_public', 'status'] as const;

/** Counter rows per value: each connection adds to the one its backend's pid picks, so writers rarely wait for each other. */
const COUNT_SHARDS = 16;

/**
 * Migration 5: a counter per (collection, counted field, value), kept by triggers in the transaction that
 * writes the document, so a count is exact for whoever sees that write, whichever process made it.
 * A write upserts its counter rows in one order (collection, field, value) and every write transaction
 * writes one document, so two writers never wait for each other's counters in opposite orders. Updates
 * that leave the counted fields alone do not run the function. The counters are then filled from the
 * stored documents: creating the triggers locks out writers until this transaction commits, so every
 * document is counted once, by the fill or by a trigger.
 */
function docCounts(t: Tables): string {
  const fields = `ARRAY[${COUNTED_FIELDS.map((f) => `'${f}'`).join(', ')}]::text[]`;
  const changed = COUNTED_FIELDS.map((f) => `OLD.fields -> 'f' -> '${f}' IS DISTINCT FROM NEW.fields -> 'f' -> '${f}'`).join(' OR ');
  return `
    CREATE TABLE IF NOT EXISTS ${t.docCounts} (
      collection text NOT NULL,
      field text NOT NULL,
      value jsonb NOT NULL,
      shard smallint NOT NULL,
      n bigint NOT NULL,
      PRIMARY KEY (collection, field, value, shard)
    );
    CREATE OR REPLACE FUNCTION ${t.schema}.doc_counts_track() RETURNS trigger
    LANGUAGE plpgsql AS $fn$
    DECLARE
      my_shard smallint := pg_backend_pid() % ${COUNT_SHARDS};
      change record;
    BEGIN
      FOR change IN
        SELECT c.coll, c.field, c.value, sum(c.delta) AS delta
        FROM (
          SELECT OLD.collection, f.field, OLD.fields -> 'f' -> f.field, -1 FROM unnest(${fields}) AS f (field) WHERE TG_OP <> 'INSERT'
          UNION ALL
          SELECT NEW.collection, f.field, NEW.fields -> 'f' -> f.field, 1 FROM unnest(${fields}) AS f (field) WHERE TG_OP <> 'DELETE'
        ) AS c (coll, field, value, delta)
        WHERE c.value IS NOT NULL
        GROUP BY c.coll, c.field, c.value
        HAVING sum(c.delta) <> 0
        ORDER BY c.coll, c.field, c.value
      LOOP
        INSERT INTO ${t.docCounts} AS k (collection, field, value, shard, n)
          VALUES (change.coll, change.field, change.value, my_shard, change.delta)
          ON CONFLICT (collection, field, value, shard) DO UPDATE SET n = k.n + excluded.n;
      END LOOP;
      RETURN NULL;
    END
    $fn$;
    DROP TRIGGER IF EXISTS doc_counts_insert ON ${t.docs};
    DROP TRIGGER IF EXISTS doc_counts_update ON ${t.docs};
    DROP TRIGGER IF EXISTS doc_counts_delete ON ${t.docs};
    CREATE TRIGGER doc_counts_insert AFTER INSERT ON ${t.docs} FOR EACH ROW
      WHEN (NEW.fields -> 'f' ?| ${fields}) EXECUTE FUNCTION ${t.schema}.doc_counts_track();
    CREATE TRIGGER doc_counts_update AFTER UPDATE ON ${t.docs} FOR EACH ROW
      WHEN (OLD.collection IS DISTINCT FROM NEW.collection OR ${changed}) EXECUTE FUNCTION ${t.schema}.doc_counts_track();
    CREATE TRIGGER doc_counts_delete AFTER DELETE ON ${t.docs} FOR EACH ROW
      WHEN (OLD.fields -> 'f' ?| ${fields}) EXECUTE FUNCTION ${t.schema}.doc_counts_track();
    TRUNCATE ${t.docCounts};
    INSERT INTO ${t.docCounts} (collection, field, value, shard, n)
      SELECT d.collection, f.field, d.fields -> 'f' -> f.field, 0, count(*)
      FROM ${t.docs} AS d CROSS JOIN unnest(${fields}) AS f (field)
      WHERE d.fields -> 'f' -> f.field IS NOT NULL
      GROUP BY 1, 2, 3;
  `;
}

/**
 * Migration 6: how many documents each collection holds, kept like the counters of migration 5 (a row
 * per collection and shard, upserted by triggers in the writing transaction), so `count` of a whole
 * collection reads a few rows instead of every document (100,000 machines: 190-330 ms). Only inserts
 * and deletes change it: a store update never moves a document to another collection. Its trigger
 * fires after the counted-field trigger (triggers run in name order), so every writer takes counter
 * rows in the same order.
 */
function docTotals(t: Tables): string {
  return `
    CREATE TABLE IF NOT EXISTS ${t.docTotals} (
      collection text NOT NULL,
      shard smallint NOT NULL,
      n bigint NOT NULL,
      PRIMARY KEY (collection, shard)
    );
    CREATE OR REPLACE FUNCTION ${t.schema}.doc_totals_track() RETURNS trigger
    LANGUAGE plpgsql AS $fn$
    BEGIN
      INSERT INTO ${t.docTotals} AS k (collection, shard, n)
        VALUES (CASE WHEN TG_OP = 'INSERT' THEN NEW.collection ELSE OLD.collection END,
                pg_backend_pid() % ${COUNT_SHARDS}, CASE WHEN TG_OP = 'INSERT' THEN 1 ELSE -1 END)
        ON CONFLICT (collection, shard) DO UPDATE SET n = k.n + excluded.n;
      RETURN NULL;
    END
    $fn$;
    DROP TRIGGER IF EXISTS doc_totals_insert ON ${t.docs};
    DROP TRIGGER IF EXISTS doc_totals_delete ON ${t.docs};
    CREATE TRIGGER doc_totals_insert AFTER INSERT ON ${t.docs} FOR EACH ROW EXECUTE FUNCTION ${t.schema}.doc_totals_track();
    CREATE TRIGGER doc_totals_delete AFTER DELETE ON ${t.docs} FOR EACH ROW EXECUTE FUNCTION ${t.schema}.doc_totals_track();
    TRUNCATE ${t.docTotals};
    INSERT INTO ${t.docTotals} (collection, shard, n) SELECT collection, 0, count(*) FROM ${t.docs} GROUP BY collection;
  `;
}

/** A partial btree an ordered `find` on `field` reads in order (only records holding that number). */
function orderedIndex(t: Tables, field: string): string {
  return `CREATE INDEX IF NOT EXISTS docs_order_${field} ON ${t.docs} (collection, ${t.schema}.doc_number(fields, '${field}'), pos)
        WHERE ${t.schema}.doc_number(fields, '${field}') IS NOT NULL;`;
}

/** One schema change: `sql` returns the statements for the store's tables. Never edit a released one; add the next. */
export interface Migration {
  version: number;
  name: string;
  sql: (t: Tables) => string;
  /**
   * The oldest build (named by the newest migration it knows) that still keeps every promise on the
   * schema once this migration is applied, so it may run beside this one during a rolling upgrade
   * (`schema-compat.ts`). Default: this migration's own version (only builds that know it may write).
   */
  writableFrom?: number;
}

/**
 * The schema, oldest first. JSON goes in `json` columns, not `jsonb`: `json` keeps the text as written,
 * so records come back with their keys in the order they were stored (as on lowdb) and strings may hold
 * U+0000, which `jsonb` refuses. Documents are queried inside only through `doc_fields` (migration 2, stored
 * in the `fields` column since migration 3) and `doc_number` over those fields (migration 3);
 * the fields log reads filter on (seq, tick, type) have columns of their own.
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    writableFrom: 1,
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
  {
    version: 2,
    writableFrom: 1,
    name: 'document field index',
    // A document's top-level strings, numbers and booleans as jsonb, beside its collection, indexed by
    // GIN jsonb_path_ops for find's field equality. Bodies stay json; a field whose key or value holds
    // U+0000 (which jsonb cannot) is left out of the index (find refuses to look for such values)
    // rather than failing the write.
    sql: (t) => `
      CREATE OR REPLACE FUNCTION ${t.schema}.doc_fields(collection text, body json) RETURNS jsonb
      LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $fn$
      DECLARE
        fields jsonb := '{}';
        cleaned json;
      BEGIN
        IF json_typeof(body) = 'object' THEN
          IF strpos(body::text, chr(92) || 'u0000') = 0 THEN
            SELECT coalesce(jsonb_object_agg(e.key, e.value::jsonb), '{}') INTO fields
              FROM json_each(body) AS e WHERE json_typeof(e.value) IN ('string', 'number', 'boolean');
          ELSE
            -- Rare: a \\u0000 escape (or text that looks like one). Real ones become U+FFFD so the record
            -- can be read as jsonb, and fields holding U+FFFD are left out: what is indexed is exact.
            cleaned := regexp_replace(body::text, '(?<!\\\\)((?:\\\\\\\\)*)\\\\u0000', '\\1\\\\ufffd', 'g')::json;
            SELECT coalesce(jsonb_object_agg(e.key, e.value::jsonb), '{}') INTO fields
              FROM json_each(cleaned) AS e
              WHERE json_typeof(e.value) IN ('string', 'number', 'boolean')
                AND strpos(e.key, chr(65533)) = 0 AND strpos(e.value::jsonb::text, chr(65533)) = 0;
          END IF;
        END IF;
        RETURN jsonb_build_object('c', collection, 'f', fields);
      END
      $fn$;
      CREATE INDEX IF NOT EXISTS docs_fields ON ${t.docs} USING gin (${t.schema}.doc_fields(collection, body) jsonb_path_ops);
    `,
  },
  {
    version: 3,
    writableFrom: 1,
    name: 'stored document fields, ordered document fields',
    // doc_fields is stored in a generated column, indexed by GIN: jsonb_path_ops is lossy, so every
    // match is rechecked, and rechecking a stored jsonb costs a fraction of calling doc_fields (which
    // parses the body) again for each match (counting 5,000 matches: 57 ms before, a few after).
    // Then a record's top-level number as double precision (null for anything else), read from the
    // stored fields (no body parsed on a write), and a btree per field that ordered finds use, so "the
    // newest public machines" or "the machines active since tick t" read a page of the index instead of
    // sorting every match. Partial: only records with the number.
    sql: (t) => `
      ALTER TABLE ${t.docs} ADD COLUMN IF NOT EXISTS fields jsonb GENERATED ALWAYS AS (${t.schema}.doc_fields(collection, body)) STORED;
      CREATE INDEX IF NOT EXISTS docs_fields_stored ON ${t.docs} USING gin (fields jsonb_path_ops);
      DROP INDEX IF EXISTS ${t.schema}.docs_fields;
      CREATE OR REPLACE FUNCTION ${t.schema}.doc_number(fields jsonb, field text) RETURNS double precision
      LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
        SELECT CASE WHEN jsonb_typeof(fields -> 'f' -> field) = 'number' THEN (fields -> 'f' ->> field)::double precision END
      $fn$;
      ${ORDERED_FIELDS.map((field) => orderedIndex(t, field)).join('\n')}
    `,
  },
  {
    version: 4,
    writableFrom: 1,
    name: 'ordered indexes for the contribute census and the community proposal list',
    sql: (t) => ORDERED_FIELDS_4.map((field) => orderedIndex(t, field)).join('\n'),
  },
  {
    version: 5,
    writableFrom: 1,
    name: 'document counters for counted fields, a short pending list for the field index',
    // Every lookup in a GIN index also reads its whole pending list (new entries not yet merged), which
    // grows to gin_pending_list_limit (4 MB by default) between merges: finding one user's machines read
    // ~500 pages (3-6 ms) where the merged index needs ~12 (0.1 ms). 256 kB bounds that at 32 pages;
    // inserting 8,000 documents took no measurably longer. The list left by older servers is merged now.
    sql: (t) => `${docCounts(t)}
      ALTER INDEX ${t.schema}.docs_fields_stored SET (gin_pending_list_limit = 256);
      SELECT gin_clean_pending_list('${t.schema.replaceAll("'", "''")}.docs_fields_stored'::regclass);
    `,
  },
  {
    version: 6,
    writableFrom: 1,
    name: 'document totals per collection',
    sql: docTotals,
  },
];

/** First key of the advisory lock that serializes migrations (ASCII "core"); the second is the schema's hash. */
const MIGRATION_LOCK = 0x636f7265;

/**
 * Brings the schema up to the latest version, in one transaction under an advisory lock, so two
 * processes starting at once apply each migration once. On a schema a newer server migrated it applies
 * nothing and refuses unless the newer migrations declared this build compatible (`writableFrom`).
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
    // A schema a newer build migrated: run beside it if its migrations say this build may, else refuse.
    const standing = await readSchemaStanding(client, t, migrations);
    assertWritable(t, standing);
    const { current } = standing;
    const applied: number[] = [];
    for (const migration of migrations) {
      if (migration.version <= current) continue;
      await client.query(migration.sql(t));
      await client.query(`INSERT INTO ${t.version} (version, name, writable_from) VALUES ($1, $2, $3)`, [
        migration.version,
        migration.name,
        writableFromOf(migration),
      ]);
      applied.push(migration.version);
    }
    return applied;
  });
}
