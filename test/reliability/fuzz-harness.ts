import { ERROR_CODES } from '../../src/errors.js';
import type { Operation } from '../../src/registry/registry.js';

/** Codes a refusal may carry; INTERNAL is never acceptable. */
export const ACCEPTED_CODES = new Set<string>(ERROR_CODES.filter((c) => c !== 'INTERNAL'));

/** A hang-catcher: on a loaded 2-core machine one call can take seconds. */
export const CALL_TIMEOUT_MS = 60_000;

/** Rejects when `p` does not settle within the per-call timeout: a hang is a finding. */
export function withTimeout<T>(p: Promise<T>, what: string, ms = CALL_TIMEOUT_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`hang: ${what} took more than ${ms} ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A query-string value for any JSON value. */
export function queryValue(v: unknown): string {
  if (typeof v === 'string') return v;
  if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v.join(',');
  return typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v);
}

/**
 * Splits a generated input into a concrete path, query and body the way a client would send it:
 * path params from the input (the fixture's slug when absent), the rest in the query for GET and
 * DELETE, in the body otherwise.
 */
export function requestOf(op: Operation, input: unknown, fallback: Record<string, string>) {
  const fields: Record<string, unknown> = isPlainObject(input) ? { ...input } : {};
  let path = op.path;
  for (const p of op.pathParams) {
    const own = Object.prototype.hasOwnProperty.call(fields, p) ? fields[p] : undefined;
    const value = own === undefined || own === '' ? (fallback[p] ?? 'x') : queryValue(own);
    delete fields[p];
    path = path.replace(`{${p}}`, encodeURIComponent(value).slice(0, 400) || 'x');
  }
  const hasBody = op.method !== 'GET' && op.method !== 'DELETE';
  const query: Record<string, string> = {};
  if (!hasBody) for (const [k, v] of Object.entries(fields)) query[k] = queryValue(v);
  const body: unknown = hasBody ? (isPlainObject(input) ? fields : input) : undefined;
  return { path, query, body };
}

/** Counts by operation and surface, for docs/reliability.md. */
export class Tally {
  readonly rows = new Map<string, { rest: number; mcp: number; http: number; ok: number; refused: Map<string, number> }>();
  add(op: string, surface: 'rest' | 'mcp' | 'http', outcome: string) {
    let row = this.rows.get(op);
    if (!row) this.rows.set(op, (row = { rest: 0, mcp: 0, http: 0, ok: 0, refused: new Map() }));
    row[surface]++;
    if (outcome === 'ok') row.ok++;
    else row.refused.set(outcome, (row.refused.get(outcome) ?? 0) + 1);
  }
}
