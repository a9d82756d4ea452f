/**
 * Rows a new index has room for before it first grows (doubling). Small: a store with 10,000 machines keeps
 * 30,000 indexes in memory, most of a few rows; at 1,024 they held 600 MB of arrays.
 */
const INITIAL_CAPACITY = 16;

/**
 * Compact in-memory index of one log stream: for each row (by seq) its byte offset in the file, its tick
 * and its type. Growable typed arrays plus a small type dictionary cost about 20 bytes per row, so a
 * stream of millions of rows stays cheap while the rows themselves stay on disk.
 */
export class RowIndex {
  /** `offsets[i]` is where row i starts; `offsets[length]` is where the next row will start. */
  #offsets = new Float64Array(INITIAL_CAPACITY + 1);
  #ticks = new Float64Array(INITIAL_CAPACITY);
  #types = new Uint32Array(INITIAL_CAPACITY);
  #length = 0;
  readonly #typeIds = new Map<string, number>();
  readonly #typeNames: string[] = [];
  /** By type id, the seq of the type's last row: an append's expectation is checked without a scan. */
  #lastOfType: number[] = [];
  /** Lowest i with tick(i) < tick(i - 1), or Infinity: binary search is only sound while it is Infinity. */
  #firstDecrease = Infinity;

  get length(): number {
    return this.#length;
  }

  /** Byte length of the committed part of the file. */
  get endOffset(): number {
    return this.#offsets[this.#length]!;
  }

  /** True while ticks never decrease, so tick ranges can be binary-searched. */
  get ticksSorted(): boolean {
    return this.#firstDecrease === Infinity;
  }

  push(byteLength: number, tick: number, type: string): void {
    const i = this.#length;
    if (i === this.#ticks.length) this.#grow();
    let typeId = this.#typeIds.get(type);
    if (typeId === undefined) {
      typeId = this.#typeNames.push(type) - 1;
      this.#typeIds.set(type, typeId);
    }
    this.#offsets[i + 1] = this.#offsets[i]! + byteLength;
    this.#ticks[i] = tick;
    this.#types[i] = typeId;
    this.#lastOfType[typeId] = i;
    if (i > 0 && tick < this.#ticks[i - 1]! && this.#firstDecrease === Infinity) this.#firstDecrease = i;
    this.#length = i + 1;
  }

  /** Forgets rows from `length` on (after a failed write was rolled back). */
  truncate(length: number): void {
    if (length >= this.#length) return;
    this.#length = Math.max(0, length);
    if (this.#firstDecrease >= this.#length) this.#firstDecrease = Infinity;
    this.#lastOfType = [];
    for (let seq = 0; seq < this.#length; seq++) this.#lastOfType[this.#types[seq]!] = seq;
  }

  offset(seq: number): number {
    return this.#offsets[seq]!;
  }

  /** Bytes of row `seq` including its trailing newline. */
  byteLength(seq: number): number {
    return this.#offsets[seq + 1]! - this.#offsets[seq]!;
  }

  tick(seq: number): number {
    return this.#ticks[seq]!;
  }

  typeId(seq: number): number {
    return this.#types[seq]!;
  }

  /** Dictionary id of a type name, or undefined when no row has that type. */
  idOfType(type: string): number | undefined {
    return this.#typeIds.get(type);
  }

  /** Seq of the last row of `type`, or -1 when no row has it. */
  lastOfType(type: string): number {
    const id = this.#typeIds.get(type);
    return id === undefined ? -1 : (this.#lastOfType[id] ?? -1);
  }

  /** First seq whose tick is >= `tick` (or `length`); only meaningful while `ticksSorted`. */
  lowerBound(tick: number): number {
    return this.#search((t) => t < tick);
  }

  /** First seq whose tick is > `tick` (or `length`); only meaningful while `ticksSorted`. */
  upperBound(tick: number): number {
    return this.#search((t) => t <= tick);
  }

  /** Binary search for the first seq where `before(tick)` turns false. */
  #search(before: (tick: number) => boolean): number {
    let lo = 0;
    let hi = this.#length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (before(this.#ticks[mid]!)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  #grow(): void {
    const capacity = this.#ticks.length * 2;
    const offsets = new Float64Array(capacity + 1);
    offsets.set(this.#offsets);
    const ticks = new Float64Array(capacity);
    ticks.set(this.#ticks);
    const types = new Uint32Array(capacity);
    types.set(this.#types);
    this.#offsets = offsets;
    this.#ticks = ticks;
    this.#types = types;
  }
}
