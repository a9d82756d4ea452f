import { createKeyedMutex } from '../../lib/keyed-mutex.js';
import { checkFind, checkOrder, decodeOrderCursor, encodeOrderCursor, type CheckedOrder, type FieldCondition } from '../doc-where.js';
import { DuplicateKeyError, InvalidCursorError, type DocStore } from '../port.js';
import { isUniqueViolation, type Tables } from './sql.js';
import type { PgRunner } from './pg-context.js';
import { createDocReader } from './pg-doc-reads.js';
import { createInsertionFind } from './pg-doc-find.js';
import { COUNTED_FIELDS } from './migrations.js';

export interface PgDocsOptions {
  /** Where statements go: the caller's lock transaction, or the open store's pool. */
  db: PgRunner;
  tables: Tables;
}

/** A value as the JSON text stored for it; only objects and arrays are documents (as on lowdb). */
function toJsonText(value: unknown): string {
  const text = JSON.stringify(value) as string | undefined;
  if (text === undefined || (text[0] !== '{' && text[0] !== '[')) throw new TypeError('a document must be a JSON object');
  return text;
}

/**
 * Documents as rows of one table keyed by (collection, id). `pos`, an identity column, keeps insertion
 * order: `put` over an existing id updates the row in place, so the record keeps its place.
 */
export function createPgDocs({ db, tables: t }: PgDocsOptions): DocStore {
  // One waiting transaction per record in this process: the rest queue here instead of holding pooled connections.
  const mutex = createKeyedMutex();
  // Inside a lock transaction the row lock alone serializes: waiting here for a writer that waits for
  // a row this transaction locked would be a deadlock PostgreSQL cannot see.
  const records = { run: <T>(key: string, section: () => Promise<T>) => (db.tx() === undefined ? mutex.run(key, section) : section()) };
  const read = createDocReader(db, t);
  const findInOrder = createInsertionFind(db, t);

  const sql = {
    get: `SELECT body FROM ${t.docs} WHERE collection = $1 AND id = $2`,
    lock: `SELECT body::text AS text FROM ${t.docs} WHERE collection = $1 AND id = $2 FOR UPDATE`,
    insert: `INSERT INTO ${t.docs} (collection, id, body) VALUES ($1, $2, $3) ON CONFLICT (collection, id) DO NOTHING`,
    put: `INSERT INTO ${t.docs} (collection, id, body) VALUES ($1, $2, $3)
          ON CONFLICT (collection, id) DO UPDATE SET body = excluded.body`,
    replace: `UPDATE ${t.docs} SET body = $3 WHERE collection = $1 AND id = $2`,
    create: `INSERT INTO ${t.docs} (collection, id, body) VALUES ($1, $2, $3)`,
    // Serializes creators of a missing record, which have no row to lock yet.
    lockMissing: `SELECT pg_advisory_xact_lock(hashtextextended($1 || '/' || $2, 0))`,
    delete: `DELETE FROM ${t.docs} WHERE collection = $1 AND id = $2`,
    list: `SELECT body FROM ${t.docs} WHERE collection = $1 ORDER BY pos`,
    count: `SELECT coalesce(sum(n), 0)::int AS n FROM ${t.docTotals} WHERE collection = $1`,
    // `c` in the stored fields names the collection, so the GIN index alone answers (see pg-doc-find.ts).
    countWhere: `SELECT count(*)::int AS n FROM ${t.docs} WHERE fields @> $1::jsonb`,
    // Kept by triggers in each writing transaction (migration 5): no record is read.
    counted: `SELECT coalesce(sum(n), 0)::int AS n FROM ${t.docCounts} WHERE collection = $1 AND field = $2 AND value = $3::jsonb`,
  };

  /**
   * An ordered find's statement and parameters. The field is written into the text (checkOrder allows
   * only plain names), so the expression is the one migration 3 indexed: a parameter would not match it.
   */
  function orderedQuery(
    collection: string,
    order: CheckedOrder,
    where: string | undefined,
    after: { value: number; ord: number } | undefined,
    limit: number | null,
  ): { text: string; values: unknown[] } {
    const num = `${t.schema}.doc_number(fields, '${order.field}')`;
    const dir = order.desc ? 'DESC' : 'ASC';
    const values: unknown[] = [collection, limit];
    // Output names differ from the columns: ORDER BY would take `pos` for a text alias and sort by it.
    let text = `SELECT pos::text AS at, ${num} AS num, body::text AS text FROM ${t.docs} WHERE collection = $1 AND ${num} IS NOT NULL`;
    if (where !== undefined) {
      values.push(where);
      // Checked on each record the field's index yields (as lowdb does), not looked up in the GIN index.
      text += ` AND fields @> $${values.length}::jsonb`;
    }
    if (after !== undefined) {
      values.push(after.value, after.ord);
      text += ` AND (${num}, pos) ${order.desc ? '<' : '>'} ($${values.length - 1}::double precision, $${values.length}::bigint)`;
    } else if (order.from !== undefined) {
      values.push(order.from);
      text += ` AND ${num} ${order.desc ? '<=' : '>='} $${values.length}::double precision`;
    }
    if (order.to !== undefined) {
      values.push(order.to);
      text += ` AND ${num} ${order.desc ? '>=' : '<='} $${values.length}::double precision`;
    }
    return { text: `${text} ORDER BY ${num} ${dir}, pos ${dir} LIMIT $2`, values };
  }

  const whereJson = (collection: string, conditions: FieldCondition[]) => JSON.stringify({ c: collection, f: Object.fromEntries(conditions) });

  /** One read-modify-write attempt; a creation raced by a plain insert or put fails with a unique violation. */
  async function updateOnce<T extends object>(collection: string, id: string, fn: (current: T | undefined) => T | undefined) {
    return db.transaction(async (client) => {
      let found = await client.query<{ text: string }>(sql.lock, [collection, id]);
      if (found.rowCount === 0) {
        await client.query(sql.lockMissing, [collection, id]);
        // A new statement sees a record created while this one waited for the lock.
        found = await client.query<{ text: string }>(sql.lock, [collection, id]);
      }
      const stored = found.rows[0]?.text;
      // `fn` gets a copy of its own, so what it changes in place is never what update returns.
      const next = fn(stored === undefined ? undefined : (JSON.parse(stored) as T));
      if (next === undefined) return stored === undefined ? undefined : (JSON.parse(stored) as T);
      const text = toJsonText(next);
      await client.query(stored === undefined ? sql.create : sql.replace, [collection, id, text]);
      return JSON.parse(text) as T;
    });
  }

  return {
    get: <T extends object>(collection: string, id: string) => read<T>(collection, id),
    async insert(collection, id, value) {
      const { rowCount } = await db.query(sql.insert, [collection, id, toJsonText(value)]);
      if (rowCount === 0) throw new DuplicateKeyError(collection, id);
    },
    async put(collection, id, value) {
      await db.query(sql.put, [collection, id, toJsonText(value)]);
    },
    /** As the port says; `fn` runs again only if a plain `insert` or `put` creates the record while `fn` is creating it. */
    async update<T extends object>(collection: string, id: string, fn: (current: T | undefined) => T | undefined) {
      return records.run(`${collection}\u0000${id}`, async () => {
        for (;;) {
          try {
            return await updateOnce(collection, id, fn);
          } catch (error) {
            if (!isUniqueViolation(error)) throw error;
          }
        }
      });
    },
    async delete(collection, id) {
      const { rowCount } = await db.query(sql.delete, [collection, id]);
      return (rowCount ?? 0) > 0;
    },
    /** As the port says: the record's row stays locked (`FOR UPDATE`) from the check to the delete. */
    async deleteIf<T extends object>(collection: string, id: string, predicate: (current: T) => boolean) {
      return records.run(`${collection}\u0000${id}`, () =>
        db.transaction(async (client) => {
          const found = await client.query<{ text: string }>(sql.lock, [collection, id]);
          const stored = found.rows[0]?.text;
          if (stored === undefined || !predicate(JSON.parse(stored) as T)) return false;
          const { rowCount } = await client.query(sql.delete, [collection, id]);
          return (rowCount ?? 0) > 0;
        }),
      );
    },
    async list<T extends object>(collection: string, filter?: (value: T) => boolean) {
      const { rows } = await db.query<{ body: T }>(sql.list, [collection]);
      const all = rows.map((row) => row.body);
      return filter === undefined ? all : all.filter(filter);
    },
    async count(collection, where) {
      const conditions = checkFind(where ?? {}, undefined);
      const [only] = conditions;
      const query =
        conditions.length === 0
          ? { text: sql.count, values: [collection] }
          : conditions.length === 1 && (COUNTED_FIELDS as readonly string[]).includes(only![0])
            ? { text: sql.counted, values: [collection, only![0], JSON.stringify(only![1])] }
            : { text: sql.countWhere, values: [whereJson(collection, conditions)] };
      const { rows } = await db.query<{ n: number }>(query.text, query.values);
      return rows[0]?.n ?? 0;
    },
    /** As the port says; the cursor is the page's last `pos`, which a record keeps for as long as it exists. */
    async find<T extends object>(collection: string, where: Parameters<DocStore['find']>[1], page?: Parameters<DocStore['find']>[2]) {
      const conditions = checkFind(where, page);
      const order = checkOrder(page);
      const limit = page?.limit;
      if (order !== undefined) {
        const after = page?.after === undefined ? undefined : decodeOrderCursor(page.after);
        if (page?.after !== undefined && after === undefined) throw new InvalidCursorError(page.after);
        const where = conditions.length > 0 ? whereJson(collection, conditions) : undefined;
        const query = orderedQuery(collection, order, where, after, limit === undefined ? null : limit + 1);
        // Sorting is switched off for this statement: the page must come from the field's index, read in
        // order, even when the planner has no statistics yet (a store just filled) and would rather sort
        // every match. SET LOCAL ends with the transaction.
        const { rows } = await db.unsorted(async (client) => {
          return client.query<{ at: string; num: number; text: string }>(query.text, query.values);
        });
        const more = limit !== undefined && rows.length > limit;
        const shown = more ? rows.slice(0, limit) : rows;
        const items = shown.map((row) => JSON.parse(row.text) as T);
        const positions = page?.positions === true ? { positions: shown.map((row) => encodeOrderCursor(row.num, row.at)) } : {};
        const lastRow = shown.at(-1);
        return more && lastRow ? { items, next: encodeOrderCursor(lastRow.num, lastRow.at), ...positions } : { items, ...positions };
      }
      const newest = page?.newestFirst === true;
      // Newest first starts above every pos (an identity column, far below 19 digits).
      const after = page?.after ?? (newest ? '999999999999999999' : '0');
      if (!/^\d{1,18}$/.test(after)) throw new InvalidCursorError(after);
      const fields = conditions.length > 0 ? whereJson(collection, conditions) : undefined;
      const rows = await findInOrder(collection, fields, after, limit === undefined ? null : limit + 1, newest);
      const more = limit !== undefined && rows.length > limit;
      const shown = more ? rows.slice(0, limit) : rows;
      const items = shown.map((row) => JSON.parse(row.text) as T);
      const positions = page?.positions === true ? { positions: shown.map((row) => row.cursor) } : {};
      return more ? { items, next: shown.at(-1)!.cursor, ...positions } : { items, ...positions };
    },
  };
}
