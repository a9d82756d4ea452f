import { open, type FileHandle } from 'node:fs/promises';

/** One file the pool may hold a handle for. */
export interface PooledFile {
  readonly file: string;
  /** The open handle, when the pool holds one. */
  fh: FileHandle | undefined;
  /** An open in progress. */
  opening: Promise<FileHandle> | undefined;
  /** A close in progress (after eviction); a new open waits for it. */
  closing: Promise<void> | undefined;
  /** Calls running with the handle right now: such a handle is never evicted. */
  users: number;
  released: boolean;
}

/**
 * Bounds the open log file handles of one store: a server with thousands of streams (one per machine,
 * per agent, ...) would otherwise keep a descriptor per stream for ever and hit the process limit.
 * Handles are opened on demand and the least recently used idle one is closed once more than `max` are
 * open. A handle in use is never closed, so the bound can be exceeded briefly by concurrent calls.
 * Files are opened 'a+': writes always land at the end, positioned reads work, and reopening is harmless.
 */
export class HandlePool {
  /**
   * Open entries no call uses right now, least recently used first (a Map keeps insertion order). An
   * entry in use is out of it, so eviction never walks past the handles it may not close: with more
   * calls under way than `max`, every call's end walked all of them.
   */
  readonly #idle = new Map<PooledFile, true>();
  /** Handles open right now, idle or in use. */
  #open = 0;

  constructor(readonly max: number) {
    if (!Number.isInteger(max) || max < 1) throw new RangeError(`the open log file limit must be a positive integer, got ${max}`);
  }

  /** Handles open right now. */
  get openCount(): number {
    return this.#open;
  }

  entry(file: string): PooledFile {
    return { file, fh: undefined, opening: undefined, closing: undefined, users: 0, released: false };
  }

  /** Runs `fn` with an open handle of `entry`, opening it (and evicting another) if needed. */
  async use<T>(entry: PooledFile, fn: (fh: FileHandle) => Promise<T>): Promise<T> {
    if (entry.released) throw new Error(`${entry.file} is closed`);
    entry.users++;
    this.#idle.delete(entry);
    try {
      return await fn(await this.#acquire(entry));
    } finally {
      entry.users--;
      // Back in as the most recently used, if it is still open.
      if (entry.users === 0 && entry.fh !== undefined && !entry.released) this.#idle.set(entry, true);
      this.#evict();
    }
  }

  /** Closes the entry's handle for good (its file is no longer used). Callers first let their work finish. */
  async release(entry: PooledFile): Promise<void> {
    entry.released = true;
    await entry.opening?.catch(() => undefined);
    const fh = entry.fh;
    entry.fh = undefined;
    this.#idle.delete(entry);
    if (fh !== undefined) this.#open--;
    await entry.closing;
    await fh?.close();
  }

  async #acquire(entry: PooledFile): Promise<FileHandle> {
    for (;;) {
      if (entry.fh !== undefined) return entry.fh;
      if (entry.opening !== undefined) return entry.opening;
      if (entry.closing === undefined) break;
      await entry.closing;
    }
    const opening = open(entry.file, 'a+', 0o600);
    entry.opening = opening;
    try {
      const fh = await opening;
      entry.fh = fh;
      this.#open++;
      return fh;
    } finally {
      entry.opening = undefined;
    }
  }

  #evict(): void {
    for (const entry of this.#idle.keys()) {
      if (this.#open <= this.max) return;
      this.#idle.delete(entry);
      const fh = entry.fh;
      if (fh === undefined) continue;
      entry.fh = undefined;
      this.#open--;
      const closing = fh.close().catch(() => undefined);
      entry.closing = closing;
      void closing.then(() => {
        if (entry.closing === closing) entry.closing = undefined;
      });
    }
  }
}
