/** Entries per block at most; a block that grows past it is split in two. */
const MAX_BLOCK = 1024;
/** A block this small is merged into its neighbour when they fit in one. */
const MIN_BLOCK = 64;

/** A run of entries in order: parallel arrays, so a block costs three arrays, not an object per entry. */
interface Block {
  values: number[];
  ords: number[];
  ids: string[];
}

/** (value, ord) of entry `i` of `block` is below the pair (v, o). */
const below = (block: Block, i: number, v: number, o: number): boolean => {
  const value = block.values[i]!;
  return value < v || (value === v && block.ords[i]! < o);
};

/** First position in `block` whose (value, ord) is >= (v, o). */
function lowerBoundIn(block: Block, v: number, o: number): number {
  let lo = 0;
  let hi = block.values.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (below(block, mid, v, o)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Ids kept sorted by one numeric field of their record, ties by ordinal (place in insertion order):
 * the in-memory index behind an ordered `find`, and (with the ordinal as value) behind each field
 * value's bucket. Kept as a list of sorted blocks of at most `MAX_BLOCK` entries, so an insert or a
 * removal anywhere moves at most one block's entries (one flat array would move half the index: at
 * 100,000 activity records, every machine's new tick moved its entry across the whole array). The usual
 * insert, a value above every other, is a push onto the last block.
 */
export class SortedIds {
  readonly #blocks: Block[] = [];
  #size = 0;

  get size(): number {
    return this.#size;
  }

  add(value: number, ord: number, id: string): void {
    if (this.#blocks.length === 0) this.#blocks.push({ values: [], ords: [], ids: [] });
    const b = Math.min(this.#blockFor(value, ord), this.#blocks.length - 1);
    const block = this.#blocks[b]!;
    const at = lowerBoundIn(block, value, ord);
    if (block.values[at] === value && block.ords[at] === ord) return;
    if (at === block.values.length) {
      block.values.push(value);
      block.ords.push(ord);
      block.ids.push(id);
    } else {
      block.values.splice(at, 0, value);
      block.ords.splice(at, 0, ord);
      block.ids.splice(at, 0, id);
    }
    this.#size++;
    if (block.values.length > MAX_BLOCK) {
      const half = block.values.length >>> 1;
      this.#blocks.splice(b + 1, 0, { values: block.values.splice(half), ords: block.ords.splice(half), ids: block.ids.splice(half) });
    }
  }

  remove(value: number, ord: number): void {
    const b = this.#blockFor(value, ord);
    const block = this.#blocks[b];
    if (block === undefined) return;
    const at = lowerBoundIn(block, value, ord);
    if (block.values[at] !== value || block.ords[at] !== ord) return;
    block.values.splice(at, 1);
    block.ords.splice(at, 1);
    block.ids.splice(at, 1);
    this.#size--;
    const next = this.#blocks[b + 1];
    if (block.values.length === 0) this.#blocks.splice(b, 1);
    else if (block.values.length < MIN_BLOCK && next !== undefined && block.values.length + next.values.length <= MAX_BLOCK) {
      block.values.push(...next.values);
      block.ords.push(...next.ords);
      block.ids.push(...next.ids);
      this.#blocks.splice(b + 1, 1);
    }
  }

  /** Entries strictly after position (`value`, `ord`) in the direction asked (from the start when `after` is absent). */
  *walk(desc: boolean, after?: { value: number; ord: number }): Generator<[value: number, ord: number, id: string]> {
    const blocks = this.#blocks;
    if (desc) {
      // The last entry below (value, ord).
      let b = after === undefined ? blocks.length - 1 : Math.min(this.#blockFor(after.value, after.ord), blocks.length - 1);
      let i = after === undefined || b < 0 ? (blocks[b]?.values.length ?? 0) - 1 : lowerBoundIn(blocks[b]!, after.value, after.ord) - 1;
      for (; b >= 0; b--, i = (blocks[b]?.values.length ?? 0) - 1) {
        const block = blocks[b]!;
        for (; i >= 0; i--) yield [block.values[i]!, block.ords[i]!, block.ids[i]!];
      }
    } else {
      // The first entry at or above (value, ord + 1).
      let b = after === undefined ? 0 : this.#blockFor(after.value, after.ord + 1);
      let i = after === undefined || b >= blocks.length ? 0 : lowerBoundIn(blocks[b]!, after.value, after.ord + 1);
      for (; b < blocks.length; b++, i = 0) {
        const block = blocks[b]!;
        for (; i < block.values.length; i++) yield [block.values[i]!, block.ords[i]!, block.ids[i]!];
      }
    }
  }

  /** The first block whose last entry is >= (v, o); `blocks.length` when every entry is below it. */
  #blockFor(v: number, o: number): number {
    let lo = 0;
    let hi = this.#blocks.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const block = this.#blocks[mid]!;
      if (below(block, block.values.length - 1, v, o)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
