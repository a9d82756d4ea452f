import { stat, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { LastOfTypeMovedError, StoreUnavailableError, type LastOfType, type LogQuery, type LogRow, type LogTally, type RowInput } from '../port.js';
import type { DiskMonitor } from './disk-monitor.js';
import { syncDir } from './fsync-path.js';
import type { HandlePool, PooledFile } from './handle-pool.js';
import { readRows, selectSeqs, tallyFrom } from './log-query.js';
import { scanLog } from './log-scan.js';
import { RowIndex } from './row-index.js';

/** Reported when opening a log had to drop a torn last line. */
export interface LowdbWarning {
  message: string;
  stream: string;
  file: string;
  droppedBytes: number;
}

export interface LogFileOptions {
  stream: string;
  file: string;
  fsync: boolean;
  onWarning: ((warning: LowdbWarning) => void) | undefined;
  /** Where the file's handle comes from: opened on demand, closed when unused for a while. */
  handles: HandlePool;
  /** Told of the bytes each batch wrote, and turns a disk fault into the store's refusal. */
  disk?: DiskMonitor;
}

/** A built row waiting for its batch to reach the disk. */
interface Pending {
  row: LogRow;
  line: string;
  bytes: number;
  resolve: (row: LogRow) => void;
  reject: (error: unknown) => void;
}

/**
 * One stream's JSON-lines file: the row index and the head row, with a handle from the store's pool.
 * The index and head stay in memory while the handle may be closed and reopened. Appends are group
 * committed (rows built while a write is in flight go out together in the next write, with one
 * fdatasync), and reads fetch only the selected rows' bytes.
 */
export class LogFile {
  readonly #index = new RowIndex();
  readonly #reads = new Set<Promise<unknown>>();
  #queue: Pending[] = [];
  #flushing: Promise<void> | undefined;
  /** Last row on disk: what readers see. */
  #durableHead: LogRow | undefined;
  /** Last row built, possibly still in flight: what the next `build` sees. */
  #head: LogRow | undefined;
  #nextSeq = 0;
  /** Per type, the seq of its last row built but not yet durable (the index knows the durable ones). */
  readonly #pendingLast = new Map<string, number>();
  #broken: Error | undefined;
  #closing: Promise<void> | undefined;

  private constructor(
    readonly options: LogFileOptions,
    private readonly entry: PooledFile,
  ) {}

  #use<T>(fn: (fh: FileHandle) => Promise<T>): Promise<T> {
    return this.options.handles.use(this.entry, fn);
  }

  /** Opens (creating if needed) and indexes the file, dropping a torn last line. */
  static async open(options: LogFileOptions): Promise<LogFile> {
    const existed = await stat(options.file).then(
      () => true,
      () => false,
    );
    const entry = options.handles.entry(options.file);
    const log = new LogFile(options, entry);
    try {
      // The pool opens 'a+' (created if missing): every write lands at the end; positioned reads still work.
      await log.#use(async (fh) => {
        if (!existed && options.fsync) await syncDir(dirname(options.file));
        const { head, validEnd, torn, damaged } = await scanLog(fh, log.#index, options.file);
        if (damaged.length > 0) {
          const message = `${options.file}: ${damaged.length} stored rows are not valid rows of their position (first: seq ${damaged[0]}); the chain checks report them`;
          options.onWarning?.({ message, stream: options.stream, file: options.file, droppedBytes: 0 });
        }
        if (torn !== undefined) {
          const { size } = await fh.stat();
          await fh.truncate(validEnd);
          if (options.fsync) await fh.datasync();
          const message = `${options.file}: dropped ${size - validEnd} bytes at the end: ${torn}`;
          options.onWarning?.({ message, stream: options.stream, file: options.file, droppedBytes: size - validEnd });
        }
        log.#durableHead = log.#head = head;
        log.#nextSeq = log.#index.length;
      });
      return log;
    } catch (error) {
      await options.handles.release(entry);
      throw options.disk?.refusal(error, `opening log ${options.stream}`) ?? error;
    }
  }

  /** Builds the row now, under the stream's lock (this method is synchronous up to the write). */
  append(build: (head: LogRow | undefined, seq: number) => RowInput<LogRow>, expect?: LastOfType): Promise<LogRow> {
    if (this.#closing !== undefined) return Promise.reject(new Error(`log ${this.options.stream} is closed`));
    if (this.#broken !== undefined) return Promise.reject(this.#broken);
    if (expect !== undefined && this.#lastOfType(expect.type) !== expect.lastSeq) return Promise.reject(new LastOfTypeMovedError(this.options.stream, expect));
    let pending: Omit<Pending, 'resolve' | 'reject'>;
    try {
      pending = this.#encode(build(this.#head, this.#nextSeq), this.#nextSeq);
    } catch (error) {
      return Promise.reject(error);
    }
    this.#nextSeq++;
    this.#head = pending.row;
    this.#pendingLast.set(pending.row.type, pending.row.seq);
    return new Promise((resolve, reject) => {
      this.#queue.push({ ...pending, resolve, reject });
      this.#flushing ??= this.#flush();
    });
  }

  #lastOfType(type: string): number {
    return this.#pendingLast.get(type) ?? this.#index.lastOfType(type);
  }

  #encode(built: RowInput<LogRow>, seq: number): Omit<Pending, 'resolve' | 'reject'> {
    const draft: Record<string, unknown> = { seq, ...built };
    draft['seq'] = seq;
    if (typeof draft['tick'] !== 'number' || !Number.isFinite(draft['tick'])) throw new TypeError('row tick must be a finite number');
    if (typeof draft['type'] !== 'string') throw new TypeError('row type must be a string');
    const line = JSON.stringify(draft);
    // The head and the returned row are the parsed line, so they equal what a later read returns.
    return { row: JSON.parse(line) as LogRow, line, bytes: Buffer.byteLength(line) + 1 };
  }

  async #flush(): Promise<void> {
    while (this.#queue.length > 0) {
      const batch = this.#queue;
      this.#queue = [];
      if (this.#broken !== undefined) {
        for (const p of batch) p.reject(this.#broken);
        continue;
      }
      const start = this.#index.endOffset;
      try {
        await this.#use(async (fh) => {
          await this.#writeAll(fh, Buffer.from(batch.map((p) => p.line).join('\n') + '\n'));
          if (this.options.fsync) await fh.datasync();
        });
      } catch (error) {
        // A failed fsync counts as a failed write: the batch is not known to be durable, so it is refused too.
        await this.#rollback(start, batch, this.options.disk?.refusal(error, `appending to log ${this.options.stream}`) ?? error);
        continue;
      }
      this.options.disk?.wrote(batch.reduce((sum, p) => sum + p.bytes, 0));
      for (const p of batch) {
        this.#index.push(p.bytes, p.row.tick, p.row.type);
        if (this.#pendingLast.get(p.row.type) === p.row.seq) this.#pendingLast.delete(p.row.type);
      }
      this.#durableHead = batch[batch.length - 1]!.row;
      for (const p of batch) p.resolve(p.row);
    }
    this.#flushing = undefined;
  }

  async #writeAll(fh: FileHandle, data: Buffer): Promise<void> {
    for (let done = 0; done < data.length;) {
      const { bytesWritten } = await fh.write(data, done, data.length - done, null);
      if (bytesWritten === 0) throw new Error(`log ${this.options.stream}: write made no progress`);
      done += bytesWritten;
    }
  }

  /**
   * Undoes a failed batch: rows queued since were built on top of it, so they fail too; the head goes
   * back to the last durable row and the file back to its committed length.
   */
  async #rollback(start: number, batch: Pending[], error: unknown): Promise<void> {
    const failed = [...batch, ...this.#queue];
    this.#queue = [];
    this.#head = this.#durableHead;
    this.#nextSeq = this.#index.length;
    this.#pendingLast.clear();
    try {
      await this.#use((fh) => fh.truncate(start));
    } catch (cause) {
      // The file may now hold rows nobody was told about: refuse further appends rather than chain on them.
      // Said as unavailable (503), not as an internal error: the disk failed, and a restart repairs the file.
      this.#broken = new StoreUnavailableError(
        'full',
        `log ${this.options.stream} could not be rolled back after a failed write; restart the node once the disk is fixed`,
        30,
        { cause },
      );
      this.options.disk?.refusal(cause, `rolling back log ${this.options.stream}`);
    }
    for (const p of failed) p.reject(error);
  }

  head(): LogRow | undefined {
    return this.#durableHead;
  }

  count(): number {
    return this.#index.length;
  }

  /** Rows at `fromTick` or later and their highest tick, from the index (see `tallyFrom`). */
  tally(fromTick: number): LogTally | undefined {
    return tallyFrom(this.#index, fromTick);
  }

  get(seq: number): Promise<LogRow | undefined> {
    if (!Number.isInteger(seq) || seq < 0 || seq >= this.#index.length) return Promise.resolve(undefined);
    return this.#track(() => this.#use((fh) => readRows(fh, this.#index, [seq])).then((rows) => rows[0]));
  }

  read(query: LogQuery): Promise<LogRow[]> {
    return this.#track(() => this.#use((fh) => readRows(fh, this.#index, selectSeqs(this.#index, query))));
  }

  /** Runs a read unless closing, and remembers it so `close` can wait for it before closing the handle. */
  #track<T>(read: () => Promise<T>): Promise<T> {
    if (this.#closing !== undefined) return Promise.reject(new Error(`log ${this.options.stream} is closed`));
    const work = read();
    this.#reads.add(work);
    const forget = (): void => void this.#reads.delete(work);
    work.then(forget, forget);
    return work;
  }

  /** Lets queued appends and running reads finish, then closes the handle. Idempotent. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      await this.#flushing;
      await Promise.allSettled([...this.#reads]);
      await this.options.handles.release(this.entry);
    })();
    return this.#closing;
  }
}
