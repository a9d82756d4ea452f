import { createInFlight } from './in-flight.js';

/**
 * A pause for a store's calls, so a copy can be taken at one point in time while the store keeps
 * running: `pause` holds every call that arrives from then on, waits for the calls already running
 * to settle (an acknowledged write is then wholly on the disk), and returns `resume`, which lets the
 * held calls through in the order they came. Calls are never refused, only delayed.
 */
export interface WriteGate {
  /** Wraps every method of `api` so its calls wait while the gate is paused and are counted while running. */
  guard<T extends object>(api: T): T;
  /** Resolves, once every call admitted so far has settled, with the function that lets held calls through. */
  pause(): Promise<() => void>;
}

export function createWriteGate(): WriteGate {
  // Calls are counted as `close` counts them (`in-flight.ts`); the gate only holds them before they start.
  const inFlight = createInFlight(() => undefined);
  let paused: Promise<void> | undefined;

  return {
    guard<T extends object>(api: T): T {
      const counted = inFlight.guard(api) as Record<string, (...args: unknown[]) => Promise<unknown>>;
      const held: Record<string, unknown> = {};
      for (const [name, fn] of Object.entries(counted)) {
        held[name] = async (...args: unknown[]) => {
          while (paused !== undefined) await paused;
          return fn(...args);
        };
      }
      return held as T;
    },
    async pause() {
      // One pause at a time: a second waits for the first to resume.
      while (paused !== undefined) await paused;
      let open!: () => void;
      paused = new Promise<void>((resolve) => (open = resolve));
      await inFlight.drain();
      return () => {
        paused = undefined;
        open();
      };
    },
  };
}
