import type { DocPageRequest, DocWhere } from './port.js';

/** One checked condition of a `find`: the field and the value it must equal. */
export type FieldCondition = readonly [field: string, value: string | number | boolean];

/**
 * Checks a `find` query the same way on every adapter, so a query one backend refuses the other refuses
 * too: field values must be strings without U+0000 (PostgreSQL's jsonb has no such character),
 * finite numbers or booleans; the limit a positive integer.
 */
export function checkFind(where: DocWhere, page: DocPageRequest | undefined): FieldCondition[] {
  if (typeof where !== 'object' || where === null || Array.isArray(where)) throw new TypeError('find: where must be an object of field values');
  const conditions: FieldCondition[] = [];
  for (const [field, value] of Object.entries(where)) {
    const ok = (typeof value === 'string' && !value.includes('\u0000')) || (typeof value === 'number' && Number.isFinite(value)) || typeof value === 'boolean';
    if (!ok) throw new TypeError(`find: ${JSON.stringify(field)} must be a string without U+0000, a finite number or a boolean`);
    conditions.push([field, value]);
  }
  if (page?.newestFirst !== undefined && typeof page.newestFirst !== 'boolean') throw new TypeError('find: newestFirst must be a boolean');
  if (page?.newestFirst === true && page.orderBy !== undefined) throw new TypeError('find: newestFirst is for insertion order; with orderBy use its desc');
  const limit = page?.limit;
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 1)) throw new TypeError(`find: limit must be a positive integer, got ${String(limit)}`);
  return conditions;
}

/**
 * The key a field value is indexed under, or undefined for values `find` never matches. Numbers by
 * their JSON text, so equal numbers share a key (stored values went through JSON: no -0, NaN or Infinity).
 */
export function indexKey(value: unknown): string | undefined {
  switch (typeof value) {
    case 'string':
      return `s${value}`;
    case 'number':
      return `n${JSON.stringify(value)}`;
    case 'boolean':
      return value ? 't' : 'f';
    default:
      return undefined;
  }
}

/** A field `orderBy` may name: also safe to write into SQL as a literal. */
const ORDER_FIELD = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/** A checked `orderBy`: `from` and `to` only when given. */
export type CheckedOrder = { field: string; desc: boolean; from?: number; to?: number };

/** Checks a `find`'s `orderBy` the same way on every adapter; undefined when the find is in insertion order. */
export function checkOrder(page: DocPageRequest | undefined): CheckedOrder | undefined {
  const order = page?.orderBy;
  if (order === undefined) return undefined;
  if (typeof order !== 'object' || order === null || typeof order.field !== 'string' || !ORDER_FIELD.test(order.field)) {
    throw new TypeError('find: orderBy.field must be a plain field name (letters, digits, _)');
  }
  if (order.from !== undefined && (typeof order.from !== 'number' || !Number.isFinite(order.from))) {
    throw new TypeError('find: orderBy.from must be a finite number');
  }
  if (order.to !== undefined && (typeof order.to !== 'number' || !Number.isFinite(order.to))) {
    throw new TypeError('find: orderBy.to must be a finite number');
  }
  return {
    field: order.field,
    desc: order.desc === true,
    ...(order.from === undefined ? {} : { from: order.from }),
    ...(order.to === undefined ? {} : { to: order.to }),
  };
}

/**
 * An ordered `find`'s cursor: the value of the page's last record and its place in insertion order
 * (lowdb's ordinal, PostgreSQL's `pos`). Undefined when `cursor` is not one.
 */
export function decodeOrderCursor(cursor: string): { value: number; ord: number } | undefined {
  const match = /^o(-?[0-9.eE+-]+):(\d{1,18})$/.exec(cursor);
  if (match === null) return undefined;
  const value = Number(match[1]);
  const ord = Number(match[2]);
  return Number.isFinite(value) && Number.isSafeInteger(ord) ? { value, ord } : undefined;
}

export function encodeOrderCursor(value: number, ord: number | string): string {
  return `o${JSON.stringify(value)}:${ord}`;
}
