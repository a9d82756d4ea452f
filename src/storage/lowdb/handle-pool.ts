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
  /** Open entries, least recently used first (a Map keeps insertion order; a use re-inserts). */
  readonly #lru = new Map<PooledFile, true>();

  constructor(readonly max: number) {
    if (!Number.isInteger(max) || max < 1) throw new RangeError(`the open log file limit must be a positive integer, got ${max}`);
  }

  /** Handles open right now. */
  get openCount(): number {
    return this.#lru.size;
  }

  entry(file: string): PooledFile {
    return { file, fh: undefined, opening: undefined, closing: undefined, users: 0, released: false };
  }

  /** Runs `fn` with an open handle of `entry`, opening it (and evicting another) if needed. */
  async use<T>(entry: PooledFile, fn: (fh: FileHandle) => Promise<T>): Promise<T> {
    if (entry.released) throw new Error(`${entry.file} is closed`);
    entry.users++;
    try {
      const fh = await this.#acquire(entry);
      this.#touch(entry);
      return await fn(fh);
    } finally {
      entry.users--;
      this.#evict();
    }
  }

  /** Closes the entry's handle for good (its file is no longer used). Callers first let their work finish. */
  async release(entry: PooledFile): Promise<void> {
    entry.released = true;
    await entry.opening?.catch(() => undefined);
    const fh = entry.fh;
    entry.fh = undefined;
    this.#lru.delete(entry);
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
      this.#lru.set(entry, true);
      return fh;
    } finally {
      entry.opening = undefined;
    }
  }

  #touch(entry: PooledFile): void {
    if (!this.#lru.has(entry)) return;
    this.#lru.delete(entry);
    this.#lru.set(entry, true);
  }

  #evict(): void {
    if (this.#lru.size <= this.max) return;
    for (const entry of this.#lru.keys()) {
      if (this.#lru.size <= this.max) return;
      if (entry.users > 0 || entry.fh === undefined) continue;
      const fh = entry.fh;
      entry.fh = undefined;
      this.#lru.delete(entry);
      const closing = fh.close().catch(() => undefined);
      entry.closing = closing;
      void closing.then(() => {
        if (entry.closing === closing) entry.closing = undefined;
      });
    }
  }
}
