/**
 * Caps on fetches running at once, overall and per host. A slot is taken or refused at once (no queue), so
 * a flood of distinct client_ids costs at most `total` connections and nothing waits in memory.
 */
export interface FetchSlots {
  /** A release function, or undefined when a cap is reached. */
  tryAcquire(host: string): (() => void) | undefined;
  readonly running: number;
}

export function createFetchSlots(caps: { total: number; perHost: number }): FetchSlots {
  const byHost = new Map<string, number>();
  let running = 0;
  return {
    tryAcquire(host) {
      const forHost = byHost.get(host) ?? 0;
      if (running >= caps.total || forHost >= caps.perHost) return undefined;
      running += 1;
      byHost.set(host, forHost + 1);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        running -= 1;
        const left = (byHost.get(host) ?? 1) - 1;
        if (left <= 0) byHost.delete(host);
        else byHost.set(host, left);
      };
    },
    get running() {
      return running;
    },
  };
}
