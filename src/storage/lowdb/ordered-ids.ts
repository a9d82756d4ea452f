/**
 * Ids kept sorted by their record's ordinal (its place in insertion order): one bucket of an in-memory
 * index. New records have the highest ordinal, so the usual insert is a push; a record whose indexed
 * field changes keeps its ordinal and is spliced into place.
 */
export class OrderedIds {
  readonly #ords: number[] = [];
  readonly #ids: string[] = [];

  get size(): number {
    return this.#ords.length;
  }

  add(ord: number, id: string): void {
    const at = this.#lowerBound(ord);
    if (this.#ords[at] === ord) return;
    if (at === this.#ords.length) {
      this.#ords.push(ord);
      this.#ids.push(id);
    } else {
      this.#ords.splice(at, 0, ord);
      this.#ids.splice(at, 0, id);
    }
  }

  remove(ord: number): void {
    const at = this.#lowerBound(ord);
    if (this.#ords[at] !== ord) return;
    this.#ords.splice(at, 1);
    this.#ids.splice(at, 1);
  }

  /** Ids with an ordinal above `after`, in order, with their ordinals. */
  *from(after: number): Generator<[ord: number, id: string]> {
    for (let i = this.#lowerBound(after + 1); i < this.#ords.length; i++) yield [this.#ords[i]!, this.#ids[i]!];
  }

  /** Ids with an ordinal below `before`, highest first, with their ordinals. */
  *downFrom(before: number): Generator<[ord: number, id: string]> {
    for (let i = this.#lowerBound(before) - 1; i >= 0; i--) yield [this.#ords[i]!, this.#ids[i]!];
  }

  /** First position whose ordinal is >= `ord`. */
  #lowerBound(ord: number): number {
    let lo = 0;
    let hi = this.#ords.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.#ords[mid]! < ord) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
