import { join } from 'node:path';
import { Low } from 'lowdb';
import { JSONFile } from 'lowdb/node';
import type { FieldCondition } from '../doc-where.js';
import { indexKey } from '../doc-where.js';
import { syncDir, syncFile } from './fsync-path.js';
import { DocJournal } from './doc-journal.js';
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
 * earlier versions wrote on every change, which therefore still loads) and `<name>.jsonl` the journal of
 * changes since. A write appends one line, so its cost does not grow with the collection; once as many
 * journal lines are dead (replaced or deleted) as records live, the snapshot is rewritten through lowdb
 * and the journal emptied. Replaying the journal over the snapshot is idempotent (it sets or deletes
 * whole records), so a crash between writing the snapshot and emptying the journal loses nothing.
 */
export class DocCollection {
  readonly records = new Map<string, Entry>();
  readonly indexes = new FieldIndexes(this.records);
  #nextOrd = 1;
  #garbage = 0;
  #compactAt = COMPACT_MIN_GARBAGE;
  #queue: Pending[] = [];
  #flushing: Promise<void> | undefined;
  /** Set while a compaction waits for the queue to drain and runs: new writes wait for it. */
  #compaction: Promise<void> | undefined;
  #closed = false;

  private constructor(
    readonly name: string,
    private readonly db: Low<Records>,
    private readonly snapshotFile: string,
    private readonly journal: DocJournal,
    private readonly fsync: boolean,
  ) {}

  static async load(dir: string, name: string, fsync: boolean, onWarning?: (warning: LowdbWarning) => void): Promise<DocCollection> {
    const snapshotFile = join(dir, `${name}.json`);
    // The adapter is built explicitly: lowdb's presets switch to memory when NODE_ENV=test.
    const db = new Low<Records>(new JSONFile<Records>(snapshotFile), Object.create(null) as Records);
    await db.read();
    const journalFile = join(dir, `${name}.jsonl`);
    const { journal, contents } = await DocJournal.open(journalFile, fsync);
    const collection = new DocCollection(name, db, snapshotFile, journal, fsync);
    for (const [id, value] of Object.entries(db.data ?? {})) collection.#set(id, value);
    db.data = Object.create(null) as Records;
    for (const op of contents.ops) {
      if ('put' in op) collection.#set(op.put, op.value);
      else collection.#delete(op.delete);
    }
    if (contents.torn !== undefined) {
      const message = `${journalFile}: dropped ${contents.droppedBytes} bytes at the end: ${contents.torn}`;
      onWarning?.({ message, stream: `docs:${name}`, file: journalFile, droppedBytes: contents.droppedBytes });
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
      if (this.#compaction === undefined && this.#garbage >= Math.max(this.#compactAt, this.records.size)) {
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

  /** Rewrites the lowdb snapshot from memory, then empties the journal. A failure leaves both valid. */
  async #compact(): Promise<void> {
    try {
      const data = Object.create(null) as Records;
      for (const [id, entry] of this.records) data[id] = entry.value;
      this.db.data = data;
      await this.db.write();
      if (this.fsync) {
        await syncFile(this.snapshotFile);
        await syncDir(join(this.snapshotFile, '..'));
      }
      await this.journal.clear();
      this.#garbage = 0;
      this.#compactAt = COMPACT_MIN_GARBAGE;
    } catch {
      // The journal still holds every change; try again after as many more dead lines.
      this.#compactAt = this.#garbage * 2;
    } finally {
      this.db.data = Object.create(null) as Records;
      const done = this.#compactionDone;
      this.#compactionDone = undefined;
      done?.();
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
   * field's order, after position `after` (absent: from the start). An infinite `ord` in `after` starts
   * the walk at its value, every record of that value included.
   */
  findOrdered(
    conditions: FieldCondition[],
    order: { field: string; desc: boolean },
    after: { value: number; ord: number } | undefined,
    limit: number | undefined,
  ): FoundOrderedPage {
    const keyed = conditions.map(([field, value]) => [field, indexKey(value)!] as const);
    const values: object[] = [];
    const at: Array<{ value: number; ord: number }> = [];
    for (const [value, ord, id] of this.indexes.sorted(order.field).walk(order.desc, after)) {
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

  /** Lets queued writes finish, then closes the journal. */
  async close(): Promise<void> {
    this.#closed = true;
    while (this.#flushing !== undefined) await this.#flushing;
    await this.journal.close();
  }
}
