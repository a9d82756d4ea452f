import { indexKey } from '../doc-where.js';
import { OrderedIds } from './ordered-ids.js';
import { SortedIds } from './sorted-ids.js';

/** A stored record and its ordinal: its place in the collection's insertion order (kept by replacements). */
export interface Entry {
  ord: number;
  value: object;
}

/**
 * The in-memory indexes of one collection: for each field a `find` has asked about, its values' ids in
 * insertion order, plus (once an empty `find` asked) every id in that order. An index is built from
 * the records the first time it is needed and kept up to date by every write after that.
 */
export class FieldIndexes {
  readonly #byField = new Map<string, Map<string, OrderedIds>>();
  readonly #sorted = new Map<string, SortedIds>();
  #all: OrderedIds | undefined;

  constructor(private readonly records: ReadonlyMap<string, Entry>) {}

  /** Every id in insertion order. */
  all(): OrderedIds {
    if (this.#all === undefined) {
      this.#all = new OrderedIds();
      for (const [id, entry] of this.records) this.#all.add(entry.ord, id);
    }
    return this.#all;
  }

  /** The ids whose `field` has the value indexed under `key` (an empty bucket when none has). */
  bucket(field: string, key: string): OrderedIds | undefined {
    let index = this.#byField.get(field);
    if (index === undefined) {
      index = new Map();
      for (const [id, entry] of this.records) add(index, entry.value, field, entry.ord, id);
      this.#byField.set(field, index);
    }
    return index.get(key);
  }

  /** The ids of the records whose `field` holds a number, sorted by it (ties by ordinal). */
  sorted(field: string): SortedIds {
    let index = this.#sorted.get(field);
    if (index === undefined) {
      index = new SortedIds();
      for (const [id, entry] of this.records) {
        const value = numberOf(entry.value, field);
        if (value !== undefined) index.add(value, entry.ord, id);
      }
      this.#sorted.set(field, index);
    }
    return index;
  }

  /** Records that `id` now holds `next` (undefined: deleted) where it held `previous`. */
  change(id: string, previous: Entry | undefined, next: Entry | undefined): void {
    if (previous !== undefined && next === undefined) this.#all?.remove(previous.ord);
    if (previous === undefined && next !== undefined) this.#all?.add(next.ord, id);
    for (const [field, index] of this.#sorted) {
      const before = previous === undefined ? undefined : numberOf(previous.value, field);
      const after = next === undefined ? undefined : numberOf(next.value, field);
      if (before === after && previous?.ord === next?.ord) continue;
      if (before !== undefined) index.remove(before, previous!.ord);
      if (after !== undefined) index.add(after, next!.ord, id);
    }
    for (const [field, index] of this.#byField) {
      const before = previous === undefined ? undefined : fieldKey(previous.value, field);
      const after = next === undefined ? undefined : fieldKey(next.value, field);
      if (before === after && previous?.ord === next?.ord) continue;
      if (previous !== undefined && before !== undefined) {
        const ids = index.get(before);
        ids?.remove(previous.ord);
        if (ids?.size === 0) index.delete(before);
      }
      if (next !== undefined) add(index, next.value, field, next.ord, id);
    }
  }
}

/** The number `field` holds, or undefined when it holds something else or is missing. */
export function numberOf(value: object, field: string): number | undefined {
  const held = Object.hasOwn(value, field) ? (value as Record<string, unknown>)[field] : undefined;
  return typeof held === 'number' ? held : undefined;
}

function fieldKey(value: object, field: string): string | undefined {
  return Object.hasOwn(value, field) ? indexKey((value as Record<string, unknown>)[field]) : undefined;
}

function add(index: Map<string, OrderedIds>, value: object, field: string, ord: number, id: string): void {
  const key = fieldKey(value, field);
  if (key === undefined) return;
  let ids = index.get(key);
  if (ids === undefined) index.set(key, (ids = new OrderedIds()));
  ids.add(ord, id);
}
