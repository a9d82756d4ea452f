import { SortedIds } from './sorted-ids.js';

/**
 * Ids kept sorted by their record's ordinal (its place in insertion order): one bucket of an in-memory
 * index. A `SortedIds` whose value is the ordinal, so an insert or removal anywhere in a large bucket
 * (a record whose indexed field changed keeps its ordinal) moves one block, not the bucket.
 */
export class OrderedIds {
  readonly #sorted = new SortedIds();

  get size(): number {
    return this.#sorted.size;
  }

  add(ord: number, id: string): void {
    this.#sorted.add(ord, ord, id);
  }

  remove(ord: number): void {
    this.#sorted.remove(ord, ord);
  }

  /** Ids with an ordinal above `after`, in order, with their ordinals. */
  *from(after: number): Generator<[ord: number, id: string]> {
    for (const [, ord, id] of this.#sorted.walk(false, { value: after, ord: after })) yield [ord, id];
  }

  /** Ids with an ordinal below `before`, highest first, with their ordinals. */
  *downFrom(before: number): Generator<[ord: number, id: string]> {
    for (const [, ord, id] of this.#sorted.walk(true, { value: before, ord: before })) yield [ord, id];
  }
}
