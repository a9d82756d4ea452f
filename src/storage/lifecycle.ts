import { createInFlight } from './in-flight.js';

export interface LifecycleSteps {
  /** Acquires files or connections; on failure the lifecycle calls `abort` and stays closed. */
  open(): Promise<void>;
  /** Undoes a failed `open`. */
  abort(): Promise<void>;
  /** Releases everything; runs after every call accepted before `close` has settled. */
  close(): Promise<void>;
}

/**
 * The open/close state machine every storage adapter shares: `open` is idempotent and concurrent calls
 * share one attempt; `close` waits for an open in progress and for every accepted call, then releases;
 * calls are refused outside the open state; a closed store can be opened again.
 */
export function createStoreLifecycle(steps: LifecycleSteps) {
  let state: 'closed' | 'opening' | 'open' | 'closing' = 'closed';
  let opening: Promise<void> | undefined;
  let closing: Promise<void> | undefined;
  const assertOpen = (): void => {
    if (state !== 'open') throw new Error('the store is not open');
  };
  const inFlight = createInFlight(assertOpen);

  return {
    assertOpen,
    /** Wraps an API so its calls are refused unless open, and awaited by `close`. */
    guard: inFlight.guard,
    isOpen: () => state === 'open',
    open(): Promise<void> {
      if (state === 'open') return Promise.resolve();
      if (state === 'closing') return Promise.reject(new Error('the store is closing'));
      opening ??= (async () => {
        state = 'opening';
        try {
          await steps.open();
          state = 'open';
          closing = undefined;
        } catch (error) {
          state = 'closed';
          await steps.abort();
          throw error;
        } finally {
          opening = undefined;
        }
      })();
      return opening;
    },
    async close(): Promise<void> {
      if (opening !== undefined) await opening.catch(() => undefined);
      if (state === 'open') {
        state = 'closing';
        closing = (async () => {
          try {
            // Calls accepted before close finish first, including those still opening their file.
            await inFlight.drain();
          } finally {
            try {
              await steps.close();
            } finally {
              state = 'closed';
            }
          }
        })();
      }
      await closing;
    },
  };
}
