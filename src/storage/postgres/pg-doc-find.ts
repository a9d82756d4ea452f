import type { PgRunner } from './pg-context.js';
import type { Tables } from './sql.js';

/**
 * How far a find with field values walks the collection in insertion order before it asks the field
 * index instead: this many records per record it may return, and at least `WALK_MIN` (all of a small
 * collection, which then never reaches the index).
 */
export const WALK_FACTOR = 16;
export const WALK_MIN = 256;

/** Records a find with field values walks before it turns to the field index (`wanted` null: no limit). */
export const walkBudget = (wanted: number | null): number => Math.max(WALK_MIN, WALK_FACTOR * (wanted ?? 0));

/** One found record: its `pos` (the cursor) and its JSON text. */
export interface FoundRow {
  cursor: string;
  text: string;
}

/**
 * The statements of a find in insertion order (oldest first, or newest first when `newest`).
 * `walk` reads the collection's `(collection, pos)` btree in order from the cursor, at most `$5`
 * records, and keeps those whose fields hold the values: it stops after `$3` rows, so a page of a common
 * value costs about the page. Besides the matches it returns the last walked record when the walk used
 * its whole budget (`edge`), so the caller knows where the field index has to take over.
 * `index` asks the GIN index on the stored fields (`c` in them names the collection: no `collection =`
 * condition, which would invite a bitmap of the whole collection's btree to AND with), then sorts the
 * matches: right for rare values, and for finds without a limit, which read every match anyway.
 */
export function insertionFindSql(t: Tables, newest: boolean) {
  const cmp = newest ? '<' : '>';
  const dir = newest ? 'DESC' : 'ASC';
  return {
    /** $1 collection, $2 after, $3 rows wanted. */
    all: `SELECT pos::text AS cursor, body::text AS text FROM ${t.docs}
          WHERE collection = $1 AND pos ${cmp} $2 ORDER BY pos ${dir} LIMIT $3`,
    /** $1 collection, $2 after, $3 rows wanted (null: all), $4 the fields as jsonb, $5 most records walked. */
    walk: `SELECT pos::text AS cursor, CASE WHEN hit THEN body::text END AS text, n = $5 AS edge
           FROM (SELECT pos, body, fields @> $4::jsonb AS hit, row_number() OVER (ORDER BY pos ${dir}) AS n
                 FROM (SELECT pos, body, fields FROM ${t.docs}
                       WHERE collection = $1 AND pos ${cmp} $2 ORDER BY pos ${dir} LIMIT $5) AS walked) AS seen
           WHERE hit OR n = $5 LIMIT $3`,
    /** $1 after, $2 rows wanted (null: all), $3 the fields as jsonb. */
    index: `SELECT pos::text AS cursor, body::text AS text FROM ${t.docs}
            WHERE fields @> $3::jsonb AND pos ${cmp} $1 ORDER BY pos ${dir} LIMIT $2`,
  };
}

/**
 * Finds in insertion order, `wanted` rows at most (null: all) after the cursor `after`. The planner
 * cannot tell a common value from a rare one (jsonb containment has no useful statistics, and a store
 * just filled has none at all): asked for a page of 50,000 matches it took the GIN bitmap, fetched
 * every match and sorted them for the first 21. So a find first walks the collection in order, within
 * a budget proportional to the page; only a value too rare to fill the page there is looked up in the
 * field index, from where the walk stopped. A small collection is walked whole and never reaches the
 * index (whose pending list alone is a few hundred pages); a rare value in a large one costs the
 * budget's walk on top of the index. The walk and the index are two statements: like pages, what they
 * return together is each record as one of them saw it.
 */
export function createInsertionFind(db: PgRunner, t: Tables) {
  const statements = { asc: insertionFindSql(t, false), desc: insertionFindSql(t, true) };
  return async function find(collection: string, where: string | undefined, after: string, wanted: number | null, newest: boolean): Promise<FoundRow[]> {
    const sql = newest ? statements.desc : statements.asc;
    if (where === undefined) return (await db.query<FoundRow>(sql.all, [collection, after, wanted])).rows;
    // Sorting is off for the walk (as for ordered finds): estimating the collection smaller than the
    // budget, a planner without statistics would rather sort all of it than read the btree in order.
    const rows = await db.unsorted(async (client) => {
      const walked = await client.query<{ cursor: string; text: string | null; edge: boolean }>(sql.walk, [
        collection,
        after,
        wanted,
        where,
        walkBudget(wanted),
      ]);
      return walked.rows;
    });
    const found = rows.filter((row): row is FoundRow & { edge: boolean } => row.text !== null);
    const edge = rows.find((row) => row.edge);
    // The page is full, or the walk reached the end of the collection: nothing more to look for.
    if ((wanted !== null && found.length >= wanted) || edge === undefined) return found;
    const rest = await db.query<FoundRow>(sql.index, [edge.cursor, wanted === null ? null : wanted - found.length, where]);
    return [...found, ...rest.rows];
  };
}
