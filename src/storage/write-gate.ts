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
  const running = new Set<Promise<unknown>>();
  let paused: Promise<void> | undefined;

  async function run(call: () => Promise<unknown>): Promise<unknown> {
    while (paused !== undefined) await paused;
    const work = call();
    running.add(work);
    const forget = (): void => void running.delete(work);
    work.then(forget, forget);
    return work;
  }

  return {
    guard<T extends object>(api: T): T {
      const guarded: Record<string, unknown> = {};
      for (const [name, method] of Object.entries(api)) {
        const fn = method as (...args: unknown[]) => Promise<unknown>;
        guarded[name] = (...args: unknown[]) => run(() => fn(...args));
      }
      return guarded as T;
    },
    async pause() {
      // One pause at a time: a second waits for the first to resume.
      while (paused !== undefined) await paused;
      let open!: () => void;
      paused = new Promise<void>((resolve) => (open = resolve));
      while (running.size > 0) await Promise.allSettled([...running]);
      return () => {
        paused = undefined;
        open();
      };
    },
  };
}
