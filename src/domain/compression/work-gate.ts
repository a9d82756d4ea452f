import { CoreError } from '../../errors.js';
import { createBoundedSlots } from '../../lib/bounded-slots.js';

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

/**
 * A bounded semaphore for work that runs on libuv's thread pool. zlib's async calls take a pool thread
 * each, and the pool (4 threads by default) also serves file reads and writes: a few slow brotli jobs
 * would delay every write of the node. Holding compression to `running` jobs keeps the other threads
 * for storage, and the queue bound keeps waiting work (and the memory of its inputs) finite.
 */
export function createWorkGate(limits: WorkGateLimits): WorkGate {
  const slots = createBoundedSlots({
    slots: limits.running,
    maxWaiting: limits.waiting,
    perHolder: limits.perHolder,
    order: 'arrival',
    refusals: {
      holderFull: () =>
        new CoreError('RATE_LIMITED', `At most ${limits.perHolder} compression calls per caller may run or wait at once; wait for one to finish`, {
          retry_after_s: 1,
        }),
      queueFull: ({ running, waiting }) =>
        new CoreError('RATE_LIMITED', `Compression is busy (${running} running, ${waiting} waiting); retry in a moment`, { retry_after_s: 1 }),
    },
  });

  return {
    load: slots.load,
    async run(holder, job, signal) {
      const free = await slots.enter(holder, signal).turn;
      try {
        return await job();
      } finally {
        free();
      }
    },
  };
}
