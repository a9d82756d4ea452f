import { statfs } from 'node:fs/promises';
import { StoreUnavailableError, type StoreCheck } from '../port.js';

/** Error codes of a disk that cannot take a write now: full, over quota, or failing (a failed fsync is EIO). */
const DISK_FAULTS = new Set(['ENOSPC', 'EDQUOT', 'EIO']);

/** Seconds a refused writer is told to wait: freeing space is an operator's job, not a retry loop's. */
export const DISK_RETRY_AFTER_S = 5;

/** How often a store whose disk check is down looks again (statfs), so it recovers without a write or a restart. */
export const DISK_RECHECK_MS = 1_000;

/** The errno code of a disk fault in `error` or its cause chain; undefined for anything else. */
export function diskFaultOf(error: unknown): string | undefined {
  for (let e = error, depth = 0; e !== undefined && e !== null && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as NodeJS.ErrnoException).code;
    if (typeof code === 'string' && DISK_FAULTS.has(code)) return code;
  }
  return undefined;
}

/** Far from the reserve, a write reads the space again after this many bytes or ms since the last read (other writers on the volume). */
const PROBE_EVERY_BYTES = 4 * 1024 * 1024;
const PROBE_EVERY_MS = 1_000;

function kib(bytes: number): string {
  return `${Math.floor(bytes / 1024)} KiB`;
}

/** Reads the free bytes of the volume holding `dir` (for the unprivileged: `bavail`). */
export type FreeBytes = (dir: string) => Promise<number>;

const statfsFree: FreeBytes = async (dir) => {
  const s = await statfs(dir);
  return s.bavail * s.bsize;
};

export interface DiskMonitorOptions {
  /** The data directory: its volume is the one watched. */
  dir: string;
  /**
   * Free bytes under which the store reports itself unready, so the pipeline refuses new writes while
   * the writes already admitted still have this much room to finish in (0: only a failed write counts).
   */
  reserveBytes: number;
  now?: () => number;
  freeBytes?: FreeBytes;
}

/**
 * The `disk` check of the embedded store. It goes down when a write fails with a disk fault (the write
 * is refused as `StoreUnavailableError('full')` and rolled back by its writer) or when the free space,
 * tracked from `statfs` and the bytes written since, falls under the reserve. It comes back when a
 * later write succeeds with space above the reserve, or when a recheck (every `DISK_RECHECK_MS` while
 * down, an unref'd timer) finds space again: the node recovers on its own once space is freed.
 */
export class DiskMonitor {
  readonly #dir: string;
  readonly #reserve: number;
  readonly #now: () => number;
  readonly #freeBytes: FreeBytes;
  /** Why the last write failed, until space is seen again. */
  #fault: string | undefined;
  /** Free bytes at the last probe, minus what was written since. */
  #free: number | undefined;
  #since: number;
  #probing: Promise<void> | undefined;
  /** Bytes written since the last probe started, and when it started. */
  #unprobed = 0;
  #probedAt = 0;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;
  /** Told of every change of the check (tests wait on it instead of on time). */
  onChange: ((check: StoreCheck) => void) | undefined;

  constructor(options: DiskMonitorOptions) {
    this.#dir = options.dir;
    this.#reserve = Math.max(0, options.reserveBytes);
    this.#now = options.now ?? Date.now;
    this.#freeBytes = options.freeBytes ?? statfsFree;
    this.#since = this.#now();
  }

  /** Reads the free space once (at open). */
  async open(): Promise<void> {
    this.#closed = false;
    await this.probe();
  }

  close(): void {
    this.#closed = true;
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** The check as `Store.status` reports it (no I/O). */
  check(): StoreCheck {
    const low = this.#low();
    if (this.#fault === undefined && !low) return { ok: true, since_ms: this.#since };
    const detail =
      this.#fault !== undefined
        ? `the last write failed: ${this.#fault}; writes are refused until space is free again`
        : `${kib(this.#free!)} free, under the reserve of ${kib(this.#reserve)}; writes are refused until space is freed`;
    return { ok: false, detail, since_ms: this.#since };
  }

  #low(): boolean {
    return this.#free !== undefined && this.#free < this.#reserve;
  }

  /**
   * The refusal for a write that failed with `error`, when that is a disk fault (the check goes down);
   * otherwise `error` itself. The writer has already cut its file back: nothing of the write remains.
   */
  refusal(error: unknown, what: string): unknown {
    const code = diskFaultOf(error);
    if (code === undefined) return error;
    const before = this.check().ok;
    this.#fault = `${code} while ${what}`;
    this.#changed(before);
    void this.probe();
    return new StoreUnavailableError('full', `${code} while ${what}`, DISK_RETRY_AFTER_S, { cause: error });
  }

  /** A write of `bytes` reached the disk: the estimate drops, and near the reserve the space is read again. */
  wrote(bytes: number): void {
    if (this.#free !== undefined) this.#free -= bytes;
    this.#unprobed += bytes;
    // Near the reserve every write reads the space again, so the estimate cannot run past it; far from
    // it, every few MiB, so other writers on the volume are noticed too.
    const near = this.#free === undefined || this.#free < this.#reserve * 2 + 64 * 1024;
    const stale = this.#now() - this.#probedAt > PROBE_EVERY_MS;
    if (this.#fault !== undefined || near || stale || this.#unprobed > PROBE_EVERY_BYTES) void this.probe();
  }

  /** Reads the free space now (one read at a time; later callers share it). */
  probe(): Promise<void> {
    this.#probing ??= (async () => {
      const before = this.check().ok;
      this.#unprobed = 0;
      this.#probedAt = this.#now();
      try {
        this.#free = await this.#freeBytes(this.#dir);
        // A fault clears once there is room for more than the reserve again (a freed disk).
        if (this.#fault !== undefined && this.#free > this.#reserve) this.#fault = undefined;
      } catch {
        // The volume cannot be read: keep the last estimate; a failing write reports the fault.
      } finally {
        this.#probing = undefined;
      }
      this.#changed(before);
    })();
    return this.#probing;
  }

  #changed(before: boolean): void {
    const check = this.check();
    if (check.ok !== before) {
      this.#since = this.#now();
      this.onChange?.(this.check());
    }
    if (!check.ok && this.#timer === undefined && !this.#closed) {
      this.#timer = setInterval(() => void this.probe(), DISK_RECHECK_MS);
      this.#timer.unref();
    } else if (check.ok && this.#timer !== undefined) {
      clearInterval(this.#timer);
      this.#timer = undefined;
    }
  }
}
