/**
 * Counts a store's running operations so `close` can let every call accepted before it finish,
 * including ones still waiting for their file to open.
 */
export interface InFlight {
  /** Wraps every method of `api`: calls are refused unless `accepting()`, and remembered until settled. */
  guard<T extends object>(api: T): T;
  /** Resolves once every operation started so far has settled. */
  drain(): Promise<void>;
}

export function createInFlight(assertAccepting: () => void): InFlight {
  const running = new Set<Promise<unknown>>();

  function run(call: () => Promise<unknown>): Promise<unknown> {
    try {
      assertAccepting();
    } catch (error) {
      return Promise.reject(error);
    }
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
    async drain() {
      while (running.size > 0) await Promise.allSettled([...running]);
    },
  };
}
