import type { FileHandle } from 'node:fs/promises';
import type { LogQuery, LogRow, LogTally } from '../port.js';
import type { RowIndex } from './row-index.js';
import { DAMAGED_ROW_TYPE, rowAt } from './log-scan.js';

/** Adjacent rows are fetched with one positioned read, up to this many bytes per read. */
const MAX_READ_BYTES = 1 << 20;

/**
 * Picks the seqs a query selects, using only the index, in the order they are returned. Seq and tick
 * bounds narrow the scanned range; tick bounds use binary search unless some tick ever decreased.
 */
export function selectSeqs(index: RowIndex, query: LogQuery): number[] {
  const limit = query.limit ?? Infinity;
  if (!(limit > 0) || index.length === 0) return [];
  let lo = Math.max(0, Math.ceil(query.fromSeq ?? 0));
  let hi = Math.min(index.length - 1, Math.floor(query.toSeq ?? Infinity));
  const { fromTick, toTick } = query;
  const filterTicks = !index.ticksSorted && (fromTick !== undefined || toTick !== undefined);
  if (index.ticksSorted) {
    if (fromTick !== undefined) lo = Math.max(lo, index.lowerBound(fromTick));
    if (toTick !== undefined) hi = Math.min(hi, index.upperBound(toTick) - 1);
  }
  let typeIds: Set<number> | undefined;
  if (query.types !== undefined) {
    typeIds = new Set();
    for (const type of query.types) {
      const id = index.idOfType(type);
      if (id !== undefined) typeIds.add(id);
    }
    if (typeIds.size === 0) return [];
  }
  // Unreadable lines are skipped by every read (the chain checks find the gap they leave).
  const damaged = query.types?.includes(DAMAGED_ROW_TYPE) ? undefined : index.idOfType(DAMAGED_ROW_TYPE);
  const matches = (seq: number): boolean => {
    if (damaged !== undefined && index.typeId(seq) === damaged) return false;
    if (typeIds !== undefined && !typeIds.has(index.typeId(seq))) return false;
    if (!filterTicks) return true;
    const tick = index.tick(seq);
    return (fromTick === undefined || tick >= fromTick) && (toTick === undefined || tick <= toTick);
  };
  const seqs: number[] = [];
  const step = query.reverse === true ? -1 : 1;
  for (let seq = step === 1 ? lo : hi; seq >= lo && seq <= hi && seqs.length < limit; seq += step) {
    if (matches(seq)) seqs.push(seq);
  }
  return seqs;
}

/**
 * How many rows `selectSeqs` would pick for `{ fromTick }` and the highest tick among them, from the
 * index alone: a binary search while ticks are sorted and no row is damaged, a scan of the range otherwise.
 */
export function tallyFrom(index: RowIndex, fromTick: number): LogTally | undefined {
  const damaged = index.idOfType(DAMAGED_ROW_TYPE);
  const lo = index.ticksSorted ? index.lowerBound(fromTick) : 0;
  if (index.ticksSorted && damaged === undefined) {
    return lo < index.length ? { rows: index.length - lo, lastTick: index.tick(index.length - 1) } : undefined;
  }
  let rows = 0;
  let lastTick = -Infinity;
  for (let seq = lo; seq < index.length; seq++) {
    const tick = index.tick(seq);
    if (tick < fromTick || index.typeId(seq) === damaged) continue;
    rows++;
    if (tick > lastTick) lastTick = tick;
  }
  return rows > 0 ? { rows, lastTick } : undefined;
}

async function readAt(fh: FileHandle, length: number, position: number): Promise<Buffer> {
  const buffer = Buffer.allocUnsafe(length);
  let done = 0;
  while (done < length) {
    const { bytesRead } = await fh.read(buffer, done, length - done, position + done);
    if (bytesRead === 0) throw new Error('log file is shorter than its index');
    done += bytesRead;
  }
  return buffer;
}

/** A stored line as the row of its position (flagged when it is not that row; see `rowAt`). */
function parseRow(line: string, seq: number, index: RowIndex): LogRow {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    value = undefined;
  }
  return rowAt(value, seq, index.tick(seq));
}

/**
 * Reads the given rows (any order) with positioned reads, one read per run of adjacent seqs, and
 * returns them in the order given, leaving out lines that are not rows at all.
 */
export async function readRows(fh: FileHandle, index: RowIndex, seqs: readonly number[]): Promise<LogRow[]> {
  const descending = seqs.length > 1 && seqs[0]! > seqs[1]!;
  const ascending = descending ? [...seqs].reverse() : seqs;
  const rows: LogRow[] = [];
  let i = 0;
  while (i < ascending.length) {
    const first = ascending[i]!;
    const start = index.offset(first);
    let j = i;
    while (j + 1 < ascending.length) {
      const next = ascending[j + 1]!;
      if (next !== ascending[j]! + 1 || index.offset(next + 1) - start > MAX_READ_BYTES) break;
      j++;
    }
    const buffer = await readAt(fh, index.offset(ascending[j]! + 1) - start, start);
    for (let k = i; k <= j; k++) {
      const seq = ascending[k]!;
      const at = index.offset(seq) - start;
      // The row's bytes end with a newline, which JSON.parse does not need.
      const row = parseRow(buffer.toString('utf8', at, at + index.byteLength(seq) - 1), seq, index);
      if (row.type !== DAMAGED_ROW_TYPE) rows.push(row);
    }
    i = j + 1;
  }
  return descending ? rows.reverse() : rows;
}
