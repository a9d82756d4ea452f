/**
 * Ids kept sorted by one numeric field of their record, ties by ordinal (place in insertion order):
 * the in-memory index behind an ordered `find`. Records are usually added with the highest value (a
 * tick that only grows), so the usual insert is a push; others are spliced into place.
 */
export class SortedIds {
  readonly #values: number[] = [];
  readonly #ords: number[] = [];
  readonly #ids: string[] = [];

  get size(): number {
    return this.#values.length;
  }

  add(value: number, ord: number, id: string): void {
    const at = this.#lowerBound(value, ord);
    if (this.#values[at] === value && this.#ords[at] === ord) return;
    this.#values.splice(at, 0, value);
    this.#ords.splice(at, 0, ord);
    this.#ids.splice(at, 0, id);
  }

  remove(value: number, ord: number): void {
    const at = this.#lowerBound(value, ord);
    if (this.#values[at] !== value || this.#ords[at] !== ord) return;
    this.#values.splice(at, 1);
    this.#ords.splice(at, 1);
    this.#ids.splice(at, 1);
  }

  /** Entries strictly after position (`value`, `ord`) in the direction asked (from the start when `after` is absent). */
  *walk(desc: boolean, after?: { value: number; ord: number }): Generator<[value: number, ord: number, id: string]> {
    if (desc) {
      const start = after === undefined ? this.#values.length - 1 : this.#lowerBound(after.value, after.ord) - 1;
      for (let i = start; i >= 0; i--) yield [this.#values[i]!, this.#ords[i]!, this.#ids[i]!];
    } else {
      const start = after === undefined ? 0 : this.#lowerBound(after.value, after.ord + 1);
      for (let i = start; i < this.#values.length; i++) yield [this.#values[i]!, this.#ords[i]!, this.#ids[i]!];
    }
  }

  /** First position whose (value, ord) is >= the given pair. */
  #lowerBound(value: number, ord: number): number {
    let lo = 0;
    let hi = this.#values.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const v = this.#values[mid]!;
      if (v < value || (v === value && this.#ords[mid]! < ord)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
