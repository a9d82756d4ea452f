import { open, readFile, stat, type FileHandle } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { StoreUnavailableError } from '../port.js';
import type { DiskMonitor } from './disk-monitor.js';
import { syncDir } from './fsync-path.js';

/** One line of a collection's journal: a record stored under an id, or an id deleted. */
export type JournalOp = { put: string; value: object } | { delete: string };

/** What opening a journal found: its operations in order, and the bytes of a torn end it dropped. */
export interface JournalContents {
  ops: JournalOp[];
  droppedBytes: number;
  torn: string | undefined;
}

function parseOp(line: string): JournalOp | undefined {
  try {
    const op = JSON.parse(line) as Partial<{ put: unknown; value: unknown; delete: unknown }>;
    if (typeof op.put === 'string' && typeof op.value === 'object' && op.value !== null) return { put: op.put, value: op.value };
    if (typeof op.delete === 'string') return { delete: op.delete };
  } catch {
    // not JSON: reported by the caller
  }
  return undefined;
}

/**
 * A collection's changes since its last snapshot, as JSON lines appended to `<collection>.jsonl`: a
 * write costs one line (and one fdatasync per group of concurrent writes), whatever the collection
 * holds. Only the end of the file can be torn (a write the crash cut short, never acknowledged); it is
 * dropped at open. A damaged line before intact ones is refused rather than silently skipped.
 */
export class DocJournal {
  #fh: FileHandle | undefined;
  #size: number;
  #broken: Error | undefined;

  private constructor(
    readonly file: string,
    private readonly fsync: boolean,
    size: number,
    private readonly disk: DiskMonitor | undefined,
  ) {
    this.#size = size;
  }

  /** A journal not yet on disk (a new generation): its file is created by the first write. */
  static empty(file: string, fsync: boolean, disk?: DiskMonitor): DocJournal {
    return new DocJournal(file, fsync, 0, disk);
  }

  /** Reads the journal (missing: empty), cutting a torn end off the file. */
  static async open(file: string, fsync: boolean, disk?: DiskMonitor): Promise<{ journal: DocJournal; contents: JournalContents }> {
    const bytes = await readFile(file).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined;
      throw error;
    });
    const contents: JournalContents = { ops: [], droppedBytes: 0, torn: undefined };
    if (bytes === undefined) return { journal: new DocJournal(file, fsync, 0, disk), contents };
    let offset = 0;
    let damagedAt: number | undefined;
    while (offset < bytes.length) {
      const newline = bytes.indexOf(0x0a, offset);
      const end = newline === -1 ? bytes.length : newline;
      const op = newline === -1 ? undefined : parseOp(bytes.toString('utf8', offset, end));
      if (op === undefined) damagedAt ??= offset;
      else if (damagedAt !== undefined)
        throw new Error(`${file}: the line at byte ${damagedAt} is damaged and intact lines follow it; restore the file from a backup`);
      else contents.ops.push(op);
      offset = end + 1;
    }
    const validEnd = damagedAt ?? bytes.length;
    if (damagedAt !== undefined) {
      contents.droppedBytes = bytes.length - damagedAt;
      contents.torn = newlineFree(bytes.toString('utf8', damagedAt, Math.min(bytes.length, damagedAt + 60)));
      const fh = await open(file, 'r+');
      try {
        await fh.truncate(validEnd);
        if (fsync) await fh.datasync();
      } finally {
        await fh.close();
      }
    }
    return { journal: new DocJournal(file, fsync, validEnd, disk), contents };
  }

  /**
   * Appends lines (each ending in a newline) and makes them durable; on failure (a failed fsync
   * included) the file is cut back and the write refused: a disk fault as `StoreUnavailableError`.
   */
  async append(text: string): Promise<void> {
    if (this.#broken !== undefined) throw this.#broken;
    const fh = await this.#handle().catch((error: unknown) => {
      throw this.disk?.refusal(error, `opening ${basename(this.file)}`) ?? error;
    });
    const data = Buffer.from(text);
    const start = this.#size;
    try {
      for (let done = 0; done < data.length;) {
        const { bytesWritten } = await fh.write(data, done, data.length - done, null);
        if (bytesWritten === 0) throw new Error(`${this.file}: write made no progress`);
        done += bytesWritten;
      }
      if (this.fsync) await fh.datasync();
    } catch (error) {
      try {
        await fh.truncate(start);
      } catch (cause) {
        // Lines nobody was told about may be in the file: refuse further writes rather than build on them.
        // Said as unavailable (503), not as an internal error: the disk failed, and a restart repairs the file.
        this.#broken = new StoreUnavailableError(
          'full',
          `${basename(this.file)} could not be cut back after a failed write; restart the node once the disk is fixed`,
          30,
          { cause },
        );
        this.disk?.refusal(cause, `cutting back ${basename(this.file)}`);
      }
      throw this.disk?.refusal(error, `writing ${basename(this.file)}`) ?? error;
    }
    this.#size = start + data.length;
    this.disk?.wrote(data.length);
  }

  async close(): Promise<void> {
    const fh = this.#fh;
    this.#fh = undefined;
    await fh?.close();
  }

  /** Opened on the first write, so collections that are only read create no file. */
  async #handle(): Promise<FileHandle> {
    if (this.#fh !== undefined) return this.#fh;
    const created =
      this.#size === 0 &&
      (await stat(this.file).then(
        () => false,
        () => true,
      ));
    this.#fh = await open(this.file, 'a', 0o600);
    if (created && this.fsync) await syncDir(dirname(this.file));
    return this.#fh;
  }
}

function newlineFree(text: string): string {
  return text.replaceAll('\n', '\\n');
}
