import { errors, type CoreError } from '../errors.js';
import type { Operation } from './registry.js';

/** Query keys the transport itself reads; they never reach an operation's input. */
export const TRANSPORT_QUERY_KEYS = new Set(['share_token']);

/**
 * Builds an operation's input from the parts of an HTTP request: body fields, then query fields
 * (strings coerced to the JSON type the schema declares), then path params.
 */
export function restInput(op: Operation, params: Record<string, string>, query: Record<string, unknown>, body: unknown): Record<string, unknown> | CoreError {
  const input: Record<string, unknown> = {};
  if (body !== undefined && body !== null) {
    if (typeof body !== 'object' || Array.isArray(body)) {
      return errors.validation('The request body must be a JSON object', {
        issues: [{ path: '(body)', message: 'expected a JSON object', code: 'invalid_type' }],
      });
    }
    for (const key of Object.keys(body)) setOwn(input, key, (body as Record<string, unknown>)[key]);
  }
  // Object.keys rather than entries: no pair arrays for every field of every request.
  const queryKeys = Object.keys(query);
  if (queryKeys.length > 0) {
    const types = op.fieldTypes;
    for (const key of queryKeys) if (!TRANSPORT_QUERY_KEYS.has(key)) setOwn(input, key, coerce(query[key], types[key]));
  }
  for (const key of Object.keys(params)) setOwn(input, key, params[key]);
  return input;
}

/**
 * Sets an own property even for `__proto__`: plain assignment would replace the input's prototype, and
 * the schema would then read the smuggled fields as if they had been sent while refusing no unknown key.
 * As an own key, `__proto__` is refused like any other unknown key.
 */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  // Only `__proto__` has a setter on a plain object; every other key is an own property by assignment.
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

const NUMBER = /^-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$/;

/** Query-string coercion; a value that does not fit is passed on as-is so validation names the problem. */
export function coerce(value: unknown, type: string | undefined): unknown {
  if (type === 'array') {
    if (Array.isArray(value)) return value;
    return typeof value === 'string' ? (value === '' ? [] : value.split(',')) : value;
  }
  if (typeof value !== 'string') return value;
  switch (type) {
    case 'number':
    case 'integer':
      return NUMBER.test(value.trim()) ? Number(value) : value;
    case 'boolean':
      if (value === 'true' || value === '1') return true;
      if (value === 'false' || value === '0') return false;
      return value;
    case 'object':
      try {
        return JSON.parse(value);
      } catch {
        return value;
      }
    default:
      return value;
  }
}
