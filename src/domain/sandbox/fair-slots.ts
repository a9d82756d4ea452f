import { CoreError } from '../../errors.js';

/** How sandbox slots are shared between identities. */
export interface FairSlotsOptions {
  /** Runs at once in this process. */
  slots: number;
  /** Runs one identity may have running or waiting at once; more are refused at once (429). */
  perIdentity: number;
  /** Runs waiting in all; more are refused at once (429). */
  maxWaiting: number;
  /** Longest a run waits for a slot before it is given up (429); bounds how long a reservation is held. */
  maxWaitMs: number;
}

export const DEFAULT_FAIR_SLOTS: FairSlotsOptions = Object.freeze({ slots: 2, perIdentity: 2, maxWaiting: 32, maxWaitMs: 120_000 });

/** A place in the queue: `turn` resolves with the function that frees the slot once the run is done. */
export interface Ticket {
  turn: Promise<() => void>;
  /** Leaves the queue (or frees the slot) without running; safe to call more than once. */
  cancel(): void;
}

export interface FairSlots {
  /** Takes a place in the queue for `identity`, or throws RATE_LIMITED at once when a cap is reached. */
  enter(identity: string): Ticket;
  /** Runs holding a slot and runs waiting, for tests and metrics. */
  load(): { running: number; waiting: number };
  /** The longest a ticket waits for its turn. */
  readonly maxWaitMs: number;
}

interface Waiter {
  identity: string;
  grant: (release: () => void) => void;
  fail: (error: CoreError) => void;
  timer: NodeJS.Timeout;
}

/**
 * Slots shared fairly: a free slot goes to the waiting identity with the fewest runs holding slots,
 * ties to the one served longest ago (round-robin), so a newcomer is served as soon as any slot frees
 * however many runs others queued; and no identity may queue more than `perIdentity` runs at all.
 * First come, first served would let a few keys keep both slots busy for minutes.
 */
export function createFairSlots(options: FairSlotsOptions = DEFAULT_FAIR_SLOTS): FairSlots {
  let running = 0;
  const waiting: Waiter[] = [];
  /** Per identity: runs holding a slot or waiting (entries at zero are removed). */
  const inFlight = new Map<string, number>();
  const holding = new Map<string, number>();
  /** When each identity was last given a slot, as a counter. */
  const lastServed = new Map<string, number>();
  let served = 0;

  const bump = (map: Map<string, number>, key: string, by: number) => {
    const next = (map.get(key) ?? 0) + by;
    if (next <= 0) map.delete(key);
    else map.set(key, next);
  };

  function next(): Waiter | undefined {
    let best = -1;
    for (let i = 0; i < waiting.length; i++) {
      const w = waiting[i]!;
      if (best < 0) {
        best = i;
        continue;
      }
      const b = waiting[best]!;
      const [hw, hb] = [holding.get(w.identity) ?? 0, holding.get(b.identity) ?? 0];
      if (hw < hb || (hw === hb && (lastServed.get(w.identity) ?? -1) < (lastServed.get(b.identity) ?? -1))) best = i;
    }
    return best < 0 ? undefined : waiting.splice(best, 1)[0];
  }

  function dispatch(): void {
    while (running < options.slots) {
      const w = next();
      if (!w) return;
      clearTimeout(w.timer);
      running++;
      bump(holding, w.identity, 1);
      lastServed.set(w.identity, ++served);
      let freed = false;
      w.grant(() => {
        if (freed) return;
        freed = true;
        running--;
        bump(holding, w.identity, -1);
        bump(inFlight, w.identity, -1);
        dispatch();
      });
    }
  }

  return {
    enter(identity) {
      const mine = inFlight.get(identity) ?? 0;
      if (mine >= options.perIdentity) {
        throw new CoreError(
          'RATE_LIMITED',
          `You already have ${mine} sandbox runs running or waiting (at most ${options.perIdentity} per agent); wait for one to finish`,
          {
            limit: options.perIdentity,
          },
        );
      }
      if (running >= options.slots && waiting.length >= options.maxWaiting) {
        throw new CoreError('RATE_LIMITED', `The sandbox is busy (${waiting.length} runs waiting); retry shortly`, { waiting: waiting.length });
      }
      bump(inFlight, identity, 1);
      let release: (() => void) | undefined;
      let done = false;
      let waiter: Waiter | undefined;
      const turn = new Promise<() => void>((resolve, reject) => {
        waiter = {
          identity,
          grant: (r) => {
            release = r;
            resolve(r);
          },
          fail: reject,
          timer: setTimeout(() => {
            if (!leave()) return;
            reject(
              new CoreError('RATE_LIMITED', `The sandbox stayed busy for ${Math.round(options.maxWaitMs / 1000)} s; your run was not started, retry shortly`, {
                waited_ms: options.maxWaitMs,
              }),
            );
          }, options.maxWaitMs),
        };
        waiting.push(waiter);
      });
      // Not awaited when the caller gives up first: never an unhandled rejection.
      turn.catch(() => undefined);
      /** Removes a waiter that was not served yet; false when it was. */
      const leave = (): boolean => {
        const at = waiter ? waiting.indexOf(waiter) : -1;
        if (at < 0) return false;
        waiting.splice(at, 1);
        clearTimeout(waiter!.timer);
        bump(inFlight, identity, -1);
        return true;
      };
      dispatch();
      return {
        turn,
        cancel() {
          if (done) return;
          done = true;
          if (release) release();
          else if (leave()) waiter!.fail(new CoreError('RATE_LIMITED', 'The run was withdrawn before it started'));
        },
      };
    },
    load: () => ({ running, waiting: waiting.length }),
    maxWaitMs: options.maxWaitMs,
  };
}
