import type { LastRows } from './pg-log-heads.js';
import { arrayLiteral, escapeLiteral, type Encoded } from './pg-log-sql.js';
import type { Tables } from './sql.js';

/*
 * The statements that write a batch of log rows (see `pg-log-append.ts`): as simple-query text, one
 * round trip each, values spliced in as literals.
 */

/** Marks the statement that finds a remembered head moved (see writeIfUnmovedSql). */
const HEAD_MOVED = 'core: a log head moved since this process wrote it';
/** Marks the statement that finds an expectation the build assumed not holding: no sign of another writer. */
export const EXPECTATION_FAILED = 'core: an append expectation does not hold';

/** One stream's rows of a batch: built from seq `expected`, moving `next_seq` to `next`. */
export interface WrittenGroup {
  stream: string;
  built: Encoded[];
  expected: number;
  next: number;
}

/**
 * Round trip 2 of a locked batch: inserts the batch's rows (of one stream, or several when appends
 * joined it), moves each stream's `next_seq` on and ends (`end`: COMMIT, or RELEASE of the savepoint),
 * as one simple query. If the insert fails, PostgreSQL skips what follows it and the caller rolls back.
 */
export function writeAndCommitSql(t: Tables, written: WrittenGroup[], end: string): string {
  const moves = written.map(({ stream, next }) => `UPDATE ${t.logHeads} SET next_seq = ${next} WHERE stream = ${escapeLiteral(stream)}`);
  return `WITH ${insertSql(t, written)} ${moves.join('; ')}; ${end}`;
}

/**
 * One round trip for a batch built on the heads this process remembers (it wrote them last): moves
 * each stream's `next_seq` on only where it still is what the rows were built on, inserts the rows
 * and ends. Should another process have appended meanwhile, the statement fails on purpose (a cast of
 * a message naming the conflict, built from a subquery so that it is evaluated only when taken) or on
 * the duplicate seq, nothing is written, and the caller builds the batch again under the lock.
 * `assumed`: the last seq per type the builds took for granted, checked in the same statement.
 */
export function writeIfUnmovedSql(t: Tables, written: WrittenGroup[], begin: string, end: string, assumed: LastRows | undefined): string {
  const moves = written.map(({ stream, expected, next }) => `(${escapeLiteral(stream)}, ${expected}::bigint, ${next}::bigint)`).join(', ');
  // Sound on this statement's snapshot only because the head did not move: every row below it was
  // committed before this process wrote it, and none came after.
  const expectations = [...(assumed?.last ?? [])].map(
    ([type, seq]) =>
      ` AND (SELECT coalesce(max(seq), -1) FROM ${t.logRows} WHERE stream = ${escapeLiteral(assumed!.stream)} AND type = ${escapeLiteral(type)}) = ${seq}`,
  );
  return `${begin}WITH moved AS (
       UPDATE ${t.logHeads} h SET next_seq = v.next FROM (VALUES ${moves}) AS v (stream, expected, next)
       WHERE h.stream = v.stream AND h.next_seq = v.expected RETURNING 1
     ), ${insertSql(t, written)}
     SELECT CASE WHEN (SELECT count(*) FROM moved) <> ${written.length} THEN ('${HEAD_MOVED} ' || (SELECT count(*) FROM moved))::int
            WHEN true${expectations.join('')} THEN 0 ELSE ('${EXPECTATION_FAILED} ' || (SELECT count(*) FROM moved))::int END AS unmoved;
     ${end}`;
}

/**
 * `written AS (INSERT ...)`: the rows of every group as one statement's CTE. The bodies go as one JSON
 * array literal, split by `json_array_elements` (which keeps each element's text exactly as sent, so
 * the stored bytes are those of `JSON.stringify`): as a `json[]` literal every double quote of every
 * row needed escaping twice, which made the query about a fifth longer and cost a pass per row here
 * and an array parse in PostgreSQL. `ROWS FROM` zips the columns by position.
 */
function insertSql(t: Tables, written: WrittenGroup[]): string {
  const column = (values: Array<string | number>) => escapeLiteral(arrayLiteral(values));
  const streams: string[] = [];
  const seqs: number[] = [];
  const ticks: number[] = [];
  const types: string[] = [];
  let bodies = '[';
  for (const { stream, built } of written) {
    for (const b of built) {
      bodies += (seqs.length === 0 ? '' : ',') + b.text;
      streams.push(stream);
      seqs.push(b.row.seq);
      ticks.push(b.tick);
      types.push(b.type);
    }
  }
  bodies += ']';
  // One stream (the usual case): its name as one literal rather than a column of copies.
  const single = written.length === 1 ? escapeLiteral(written[0]!.stream) : undefined;
  return `written AS (
       INSERT INTO ${t.logRows} (stream, seq, tick, type, body)
       SELECT ${single ?? 'r.stream'}, r.seq, r.tick, r.type, r.body
       FROM ROWS FROM (${single ? '' : `unnest(${column(streams)}::text[]), `}unnest(${column(seqs)}::bigint[]), unnest(${column(ticks)}::float8[]),
                       unnest(${column(types)}::text[]), json_array_elements(${escapeLiteral(bodies)}::json)) AS r (${single ? '' : 'stream, '}seq, tick, type, body)
       RETURNING 1
     )`;
}
