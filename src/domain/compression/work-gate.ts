import { CoreError } from '../../errors.js';

export interface WorkGateLimits {
  /** Jobs running at once; the rest wait in arrival order. */
  running: number;
  /** Jobs that may wait; beyond that a call is refused with RATE_LIMITED. */
  waiting: number;
  /** Jobs one holder (a uid, else a client address) may have running or waiting. */
  perHolder: number;
}

export interface WorkGate {
  /**
   * Runs `job` when a slot is free. Throws RATE_LIMITED at once when the queue or the holder's share is
   * full, and stops waiting (the job never starts) when `signal` aborts first; a function is called
   * only if the job has to wait.
   */
  run<T>(holder: string, job: () => Promise<T>, signal?: AbortSignal | (() => AbortSignal)): Promise<T>;
  /** Jobs running and waiting now. */
  load(): { running: number; waiting: number };
}

interface Waiter {
  start: () => void;
  cancel: () => void;
}

/**
 * A bounded semaphore for work that runs on libuv's thread pool. zlib's async calls take a pool thread
 * each, and the pool (4 threads by default) also serves file reads and writes: a few slow brotli jobs
 * would delay every write of the node. Holding compression to `running` jobs keeps the other threads
 * for storage, and the queue bound keeps waiting work (and the memory of its inputs) finite.
 */
export function createWorkGate(limits: WorkGateLimits): WorkGate {
  let running = 0;
  const queue: Waiter[] = [];
  const held = new Map<string, number>();

  const release = (holder: string): void => {
    const left = (held.get(holder) ?? 1) - 1;
    if (left > 0) held.set(holder, left);
    else held.delete(holder);
  };
  /** Hands the finished job's slot to the first waiter, so no call arriving meanwhile can take it too. */
  const next = (): void => {
    const waiter = queue.shift();
    if (waiter) waiter.start();
    else running--;
  };

  return {
    load: () => ({ running, waiting: queue.length }),

    async run(holder, job, signalOf) {
      if ((held.get(holder) ?? 0) >= limits.perHolder) {
        throw new CoreError('RATE_LIMITED', `At most ${limits.perHolder} compression calls per caller may run or wait at once; wait for one to finish`, {
          retry_after_s: 1,
        });
      }
      if (running >= limits.running && queue.length >= limits.waiting) {
        throw new CoreError('RATE_LIMITED', `Compression is busy (${running} running, ${queue.length} waiting); retry in a moment`, { retry_after_s: 1 });
      }
      held.set(holder, (held.get(holder) ?? 0) + 1);
      try {
        if (running >= limits.running) await waitForSlot(typeof signalOf === 'function' ? signalOf() : signalOf);
        else running++;
      } catch (err) {
        release(holder);
        throw err;
      }
      try {
        return await job();
      } finally {
        release(holder);
        next();
      }
    },
  };

  function waitForSlot(signal: AbortSignal | undefined): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const onAbort = (): void => waiter.cancel();
      const waiter: Waiter = {
        start: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
        cancel: () => {
          const at = queue.indexOf(waiter);
          if (at >= 0) queue.splice(at, 1);
          reject(signal?.reason ?? new Error('aborted'));
        },
      };
      queue.push(waiter);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}
