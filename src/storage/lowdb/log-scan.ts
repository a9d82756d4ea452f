import type { FileHandle } from 'node:fs/promises';
import { isObject } from '../../lib/is-object.js';
import type { LogRow } from '../port.js';
import type { RowIndex } from './row-index.js';

const CHUNK_BYTES = 1 << 20;
const NEWLINE = 0x0a;

export interface ScanResult {
  /** The last intact row, the only row object kept in memory. */
  head: LogRow | undefined;
  /** Byte length of the intact rows: the file is truncated to this when `torn` is set. */
  validEnd: number;
  /** Why the trailing bytes are not a row (a write cut short by a crash), if they are not. */
  torn: string | undefined;
  /** Seqs of complete lines that are not a row of their position (edited, removed or reordered by hand). */
  damaged: number[];
}

/** True when `value` has the shape every stored row has; `seq` must equal its line number. */
export function isRowAt(value: unknown, seq: number): value is LogRow {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const row = value as Partial<LogRow>;
  return row.seq === seq && typeof row.tick === 'number' && Number.isFinite(row.tick) && typeof row.type === 'string';
}

/**
 * Type under which a stored line that is not JSON or not a row at all is indexed: reads skip it, so
 * they keep working, and the chain checks report the seq it leaves missing as the first bad row.
 */
export const DAMAGED_ROW_TYPE = 'core.damaged_row';

/** The index entry of an unreadable line: its position and the tick of the row before it, nothing else. */
export function damagedRow(seq: number, tick: number): LogRow {
  return { seq, tick, type: DAMAGED_ROW_TYPE, damaged: true };
}

/**
 * The row a stored line gives at position `seq`. A row stored at the wrong position (rows removed or
 * reordered by hand) keeps its fields, type and tick (so type filters still find it) but takes the seq
 * of its position and a `damaged` note that no stored hash includes, so the chain checks name it.
 */
export function rowAt(value: unknown, seq: number, prevTick: number): LogRow {
  if (isRowAt(value, seq)) return value;
  const row = value as Partial<LogRow> | undefined;
  const shaped = isObject(row) && typeof row.tick === 'number' && Number.isFinite(row.tick) && typeof row.type === 'string';
  if (!shaped) return damagedRow(seq, prevTick);
  return { ...(row as LogRow), seq, damaged: `the line stored here holds seq ${JSON.stringify(row.seq ?? null)}` };
}

function parseLine(buffer: Buffer, start: number, end: number): unknown {
  try {
    return JSON.parse(buffer.toString('utf8', start, end));
  } catch {
    return undefined;
  }
}

/**
 * Reads a JSON-lines log in fixed-size chunks (never the whole file as one string) and fills `index`.
 * Only the last line may be torn, since rows are only ever appended; a bad row anywhere else is
 * corruption: it is kept in the index as a damaged row (listed in `damaged`), never repaired, so the
 * log still opens and the chain checks name it.
 */
export async function scanLog(fh: FileHandle, index: RowIndex, _file: string): Promise<ScanResult> {
  const { size } = await fh.stat();
  let head: LogRow | undefined;
  const damaged: number[] = [];
  let pending = Buffer.alloc(0);
  /** File position of `pending[0]`. */
  let base = 0;
  let readAt = 0;
  while (readAt < size) {
    const chunk = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, size - readAt));
    const { bytesRead } = await fh.read(chunk, 0, chunk.length, readAt);
    if (bytesRead === 0) break;
    readAt += bytesRead;
    const fresh = chunk.subarray(0, bytesRead);
    pending = pending.length > 0 ? Buffer.concat([pending, fresh]) : fresh;
    let start = 0;
    for (let nl = pending.indexOf(NEWLINE, start); nl !== -1; nl = pending.indexOf(NEWLINE, start)) {
      const value = parseLine(pending, start, nl);
      if (value === undefined && base + nl + 1 >= size) {
        return { head, validEnd: base + start, torn: 'the last line is not valid JSON', damaged };
      }
      const row = rowAt(value, index.length, head?.tick ?? 0);
      if (row !== value) damaged.push(row.seq);
      index.push(nl + 1 - start, row.tick, row.type);
      head = row;
      start = nl + 1;
    }
    base += start;
    pending = pending.subarray(start);
  }
  const torn = pending.length > 0 ? 'the last line has no trailing newline' : undefined;
  return { head, validEnd: base, torn, damaged };
}
