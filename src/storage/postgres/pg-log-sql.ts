import type { LogRow, RowInput } from '../port.js';

/*
 * How the log appender writes rows as SQL text: one row as stored (JSON text) and read back, and the
 * literals it splices into its simple-query statements.
 */

export interface Encoded {
  row: LogRow;
  text: string;
  tick: number;
  type: string;
}

/** The row `build` returned, with the seq set by the store, as stored (JSON text) and as read back. */
export function encode(built: RowInput<LogRow>, seq: number): Encoded {
  const draft: Record<string, unknown> = { seq, ...built };
  draft['seq'] = seq;
  const { tick, type } = draft;
  if (typeof tick !== 'number' || !Number.isFinite(tick)) throw new TypeError('row tick must be a finite number');
  if (typeof type !== 'string') throw new TypeError('row type must be a string');
  const text = JSON.stringify(draft);
  return { row: JSON.parse(text) as LogRow, text, tick, type };
}

/**
 * A string as a SQL literal, escaped exactly as pg's `escapeLiteral` does (quotes doubled; with any
 * backslash, an E'' literal with backslashes doubled), without its per-character loop, which showed up
 * in the profile on kilobyte-long batches.
 */
export function escapeLiteral(value: string): string {
  const quoted = `'${value.replaceAll("'", "''")}'`;
  return value.includes('\\') ? ` E${quoted.replaceAll('\\', '\\\\')}` : quoted;
}

/** An array literal (`{...}`) of numbers or strings, each string double-quoted with `"` and `\\` escaped (as pg sends arrays). */
export function arrayLiteral(values: Array<string | number>): string {
  const parts = values.map((v) => (typeof v === 'number' ? String(v) : `"${v.replace(/[\\"]/g, '\\$&')}"`));
  return `{${parts.join(',')}}`;
}
