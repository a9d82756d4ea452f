import { join } from 'node:path';
import { Low } from 'lowdb';
import { JSONFile } from 'lowdb/node';
import type { FieldCondition } from '../doc-where.js';
import { indexKey } from '../doc-where.js';
import type { DiskMonitor } from './disk-monitor.js';
import { DocJournal } from './doc-journal.js';
import { journalFile, journalGenerations, removeGenerations } from './journal-generations.js';
import { captureEntries, type SnapshotEntries, writeSnapshotFile } from './snapshot-file.js';
import { FieldIndexes, type Entry } from './field-indexes.js';
import type { LowdbWarning } from './log-file.js';

/** A snapshot's records by id. Null prototype, so ids such as `__proto__` are plain keys. */
type Records = Record<string, object>;

/** Journal lines made dead (replaced or deleted records) before a compaction: at least this many, and as many as the live records. */
const COMPACT_MIN_GARBAGE = 1000;

/** A write applied in memory and waiting for its journal line to be durable. */
interface Pending {
  line: string;
  undo: () => void;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/** What a mutation did: its result, and the journal line and undo of its write (absent: nothing written). */
export interface Change<T> {
  result: T;
  write?: { line: string; undo: () => void };
}

/** One page of a `find` on one collection: the records and the ordinal of the last one. */
export interface FoundPage {
  values: object[];
  /** Where each record of `values` sits. */
  at: Array<{ ord: number; id: string }>;
  /** Where the page ended (present when more matching records follow). */
  last?: { ord: number; id: string };
}

/** One page of an ordered `find`: the records, where each sits, and where the page ended (when more follow). */
export interface FoundOrderedPage {
  values: object[];
  at: Array<{ value: number; ord: number }>;
  last?: { value: number; ord: number };
}

/**
 * One document collection of the embedded store. Every record is held in memory (as lowdb always held
 * them); on disk, `<name>.json` is the lowdb snapshot (the whole collection keyed by id, the format
 * earlier versions wrote on every change, which therefore still loads) and the journal of changes
 * since (`journal-generations.ts`). A write appends one line, so its cost does not grow with the
 * collection. Once as many journal lines are dead (replaced or deleted) as records live, a compaction
 * starts a new journal generation and rewrites the snapshot (`snapshot-file.ts`) in the background, while
 * writes go on into the new generation; the older generations are removed once the snapshot is
 * durable. Replaying a journal over the snapshot is idempotent (it sets or deletes whole records), so a
 * crash at any point of that loses nothing.
 */
export class DocCollection {
  readonly records = new Map<string, Entry>();
  readonly indexes = new FieldIndexes(this.records);
  #nextOrd = 1;
  #garbage = 0;
  #compactAt = COMPACT_MIN_GARBAGE;
  #queue: Pending[] = [];
  #flushing: Promise<void> | undefined;
  /** Set while a compaction waits for the queue to drain and switches generations: new writes wait for it. */
  #compaction: Promise<void> | undefined;
  /** The background snapshot write of the last compaction, while it runs. */
  #snapshotting: Promise<void> | undefined;
  #closed = false;
  /** The generation written to, and the older ones still on disk (not yet covered by a durable snapshot). */
  #generation: number;
  #older: number[];

  private constructor(
    readonly name: string,
    private readonly dir: string,
    private journal: DocJournal,
    generations: number[],
    private readonly fsync: boolean,
    private readonly disk: DiskMonitor | undefined,
  ) {
    this.#generation = generations.at(-1) ?? 0;
    this.#older = generations.slice(0, -1);
  }

  static async load(dir: string, name: string, fsync: boolean, onWarning?: (warning: LowdbWarning) => void, disk?: DiskMonitor): Promise<DocCollection> {
    const snapshotFile = join(dir, `${name}.json`);
    // The adapter is built explicitly: lowdb's presets switch to memory when NODE_ENV=test.
    const db = new Low<Records>(new JSONFile<Records>(snapshotFile), Object.create(null) as Records);
    await db.read();
    const generations = await journalGenerations(dir, name);
    if (generations.length === 0) generations.push(0);
    const opened = [];
    for (const generation of generations)
      opened.push({ file: journalFile(dir, name, generation), ...(await DocJournal.open(journalFile(dir, name, generation), fsync, disk)) });
    const collection = new DocCollection(name, dir, opened.at(-1)!.journal, generations, fsync, disk);
    for (const [id, value] of Object.entries(db.data ?? {})) collection.#set(id, value);
    db.data = Object.create(null) as Records;
    for (const { file, contents } of opened) {
      for (const op of contents.ops) {
        if ('put' in op) collection.#set(op.put, op.value);
        else collection.#delete(op.delete);
      }
      if (contents.torn !== undefined) {
        const message = `${file}: dropped ${contents.droppedBytes} bytes at the end: ${contents.torn}`;
        onWarning?.({ message, stream: `docs:${name}`, file, droppedBytes: contents.droppedBytes });
      }
    }
    return collection;
  }

  /** Stores `value` (already a stored copy) under `id`; returns how to take it back. */
  #set(id: string, value: object): () => void {
    const previous = this.records.get(id);
    const next: Entry = { ord: previous?.ord ?? this.#nextOrd++, value };
    this.records.set(id, next);
    this.indexes.change(id, previous, next);
    if (previous !== undefined) this.#garbage += 1;
    return previous === undefined ? () => this.#delete(id) : () => this.#restore(id, previous);
  }

  /** Deletes `id`; returns how to put it back in its place. */
  #delete(id: string): () => void {
    const previous = this.records.get(id);
    if (previous === undefined) return () => undefined;
    this.records.delete(id);
    this.indexes.change(id, previous, undefined);
    this.#garbage += 2;
    return () => {
      this.#restore(id, previous);
      // The map's order is ordinal order: moving every later record behind the re-added one restores it
      // (only after a failed write, so the linear cost is paid rarely).
      const following = [...this.records].filter(([key, entry]) => entry.ord > previous.ord && key !== id);
      for (const [key, entry] of following) {
        this.records.delete(key);
        this.records.set(key, entry);
      }
    };
  }

  #restore(id: string, entry: Entry): void {
    const current = this.records.get(id);
    this.records.set(id, entry);
    this.indexes.change(id, current, entry);
  }

  /** A put's journal line and undo. `text` is the value's JSON, `value` its parsed copy (what is stored). */
  put(id: string, value: object, text: string): { line: string; undo: () => void } {
    return { line: `{"put":${JSON.stringify(id)},"value":${text}}\n`, undo: this.#set(id, value) };
  }

  delete(id: string): { line: string; undo: () => void } {
    return { line: `{"delete":${JSON.stringify(id)}}\n`, undo: this.#delete(id) };
  }

  /**
   * Runs `change` (synchronously, after writes called earlier: so in call order) and resolves once its
   * journal line is durable; if the write fails the change is undone and the call rejects.
   */
  async mutate<T>(change: () => Change<T>): Promise<T> {
    while (this.#compaction !== undefined) await this.#compaction;
    if (this.#closed) throw new Error(`collection ${this.name} is closed`);
    const { result, write } = change();
    if (write === undefined) return result;
    await new Promise<void>((resolve, reject) => {
      this.#queue.push({ ...write, resolve, reject });
      this.#flushing ??= this.#flush();
    });
    return result;
  }

  /** Group commit: what was queued while a write was in flight goes out together in the next one. */
  async #flush(): Promise<void> {
    while (this.#queue.length > 0) {
      const batch = this.#queue;
      this.#queue = [];
      try {
        await this.journal.append(batch.map((p) => p.line).join(''));
      } catch (error) {
        // Writes queued since were applied on top of the failed ones: they are undone and fail too.
        const failed = [...batch, ...this.#queue];
        this.#queue = [];
        for (const p of failed.reverse()) p.undo();
        for (const p of failed) p.reject(error);
        continue;
      }
      for (const p of batch) p.resolve();
      if (this.#compaction === undefined && this.#snapshotting === undefined && this.#garbage >= Math.max(this.#compactAt, this.records.size)) {
        let done!: () => void;
        this.#compaction = new Promise<void>((resolve) => (done = resolve)).then(() => (this.#compaction = undefined));
        this.#compactionDone = done;
      }
      // Compacts only once every write applied in memory is durable, so the snapshot holds no undoable write.
      if (this.#compactionDone !== undefined && this.#queue.length === 0) await this.#compact();
    }
    this.#flushing = undefined;
  }

  #compactionDone: (() => void) | undefined;

  /**
   * Starts a new journal generation and hands the records as they are now (every one durable) to a
   * background snapshot write. Writes wait only for the copy of the record references and the switch,
   * not for the snapshot; the event loop is never held for the whole collection.
   */
  async #compact(): Promise<void> {
    try {
      const entries = await captureEntries(this.records);
      const covered = [...this.#older, this.#generation];
      const previous = this.journal;
      this.#generation += 1;
      this.#older = covered;
      this.journal = DocJournal.empty(journalFile(this.dir, this.name, this.#generation), this.fsync, this.disk);
      await previous.close();
      this.#snapshotting = this.#writeSnapshot(entries, covered, this.#garbage).finally(() => (this.#snapshotting = undefined));
    } finally {
      const done = this.#compactionDone;
      this.#compactionDone = undefined;
      done?.();
    }
  }

  /** Writes `entries` as the snapshot, then removes the generations it covers. A failure leaves every file valid. */
  async #writeSnapshot(entries: SnapshotEntries, covered: number[], garbage: number): Promise<void> {
    try {
      this.disk?.wrote(await writeSnapshotFile(join(this.dir, `${this.name}.json`), entries, this.fsync));
      await removeGenerations(this.dir, this.name, covered, this.fsync);
      this.#older = this.#older.filter((generation) => !covered.includes(generation));
      this.#garbage = Math.max(0, this.#garbage - garbage);
      this.#compactAt = COMPACT_MIN_GARBAGE;
    } catch (error) {
      // The generations still hold every change; try again after as many more dead lines. A full disk
      // is reported (the disk check goes down) though no caller waits for this write.
      this.disk?.refusal(error, `writing the ${this.name} snapshot`);
      this.#compactAt = this.#garbage * 2;
    }
  }

  /**
   * One page of the records matching every condition, in insertion order after ordinal `afterOrd`, or
   * (`newestFirst`) in reverse insertion order below it (from the newest when `afterOrd` is undefined).
   */
  find(conditions: FieldCondition[], afterOrd: number | undefined, limit: number | undefined, newestFirst = false): FoundPage {
    const keyed = conditions.map(([field, value]) => [field, indexKey(value)!] as const);
    let ids = keyed.length === 0 ? this.indexes.all() : undefined;
    for (const [field, key] of keyed) {
      const bucket = this.indexes.bucket(field, key);
      if (bucket === undefined) return { values: [], at: [] };
      if (ids === undefined || bucket.size < ids.size) ids = bucket;
    }
    const values: object[] = [];
    const at: Array<{ ord: number; id: string }> = [];
    for (const [ord, id] of newestFirst ? ids!.downFrom(afterOrd ?? Infinity) : ids!.from(afterOrd ?? 0)) {
      const entry = this.records.get(id)!;
      const record = entry.value as Record<string, unknown>;
      if (!keyed.every(([field, key]) => Object.hasOwn(record, field) && indexKey(record[field]) === key)) continue;
      if (limit !== undefined && values.length === limit) return { values, at, last: at.at(-1)! };
      values.push(entry.value);
      at.push({ ord, id });
    }
    return { values, at };
  }

  /**
   * One page of the records matching every condition whose `order.field` holds a number, in that
   * field's order, after position `after` (absent: from the start), up to `order.to` when given. An
   * infinite `ord` in `after` starts the walk at its value, every record of that value included.
   */
  findOrdered(
    conditions: FieldCondition[],
    order: { field: string; desc: boolean; to?: number },
    after: { value: number; ord: number } | undefined,
    limit: number | undefined,
  ): FoundOrderedPage {
    const { to } = order;
    const keyed = conditions.map(([field, value]) => [field, indexKey(value)!] as const);
    const values: object[] = [];
    const at: Array<{ value: number; ord: number }> = [];
    for (const [value, ord, id] of this.indexes.sorted(order.field).walk(order.desc, after)) {
      // Past the bound nothing more is returned, so the page ends without a `next`.
      if (to !== undefined && (order.desc ? value < to : value > to)) break;
      const record = this.records.get(id)!.value as Record<string, unknown>;
      if (!keyed.every(([field, key]) => Object.hasOwn(record, field) && indexKey(record[field]) === key)) continue;
      if (limit !== undefined && values.length === limit) return { values, at, last: at.at(-1)! };
      values.push(record);
      at.push({ value, ord });
    }
    return { values, at };
  }

  /** How many records match every condition. */
  count(conditions: FieldCondition[]): number {
    if (conditions.length === 0) return this.records.size;
    return this.find(conditions, 0, undefined).values.length;
  }

  /** Lets queued writes and a running snapshot write finish, then closes the journal. */
  async close(): Promise<void> {
    this.#closed = true;
    while (this.#flushing !== undefined) await this.#flushing;
    await this.#snapshotting;
    await this.journal.close();
  }
}
