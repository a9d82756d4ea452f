import { EventEmitter } from 'node:events';
import type { Json, LockStore, PubSub } from './port.js';

/**
 * Locks of a store only one process opens (lowdb): per-key queues in memory. `tryRun` runs only when
 * nothing holds or waits for the key.
 */
export function createLocalLocks(): LockStore & { held(key: string): boolean } {
  const tails = new Map<string, Promise<unknown>>();
  // A lock in this process's memory is lost only with the process.
  const never = new AbortController().signal;
  function run<T>(key: string, fn: (lost: AbortSignal) => Promise<T>): Promise<T> {
    const previous = tails.get(key) ?? Promise.resolve();
    const start = () => fn(never);
    const current = previous.then(start, start);
    // Registered on `current` before the caller's await, so the key is free once the caller resumes
    // (a `tryRun` right after a `run` of the key finds it free).
    const free = () => {
      if (tails.get(key) === tail) tails.delete(key);
    };
    const tail: Promise<unknown> = current.then(free, free);
    tails.set(key, tail);
    return current;
  }
  return {
    run,
    async tryRun(key, fn) {
      if (tails.has(key)) return { ran: false };
      return { ran: true, value: await run(key, fn) };
    },
    held: (key) => tails.has(key),
  };
}

/** Messages of a store only one process opens: an in-process emitter (delivery on a later turn, as over a network). */
export function createLocalPubSub(): PubSub {
  const emitter = new EventEmitter();
  emitter.setMaxListeners(0);
  return {
    publish(channel, payload) {
      queueMicrotask(() => emitter.emit(channel, payload));
    },
    subscribe(channel, cb: (payload: Json) => void) {
      emitter.on(channel, cb);
      return () => emitter.off(channel, cb);
    },
    // One process, no connection to lose.
    onResume: () => () => undefined,
  };
}
