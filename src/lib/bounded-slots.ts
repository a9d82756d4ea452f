/** Entries holding a slot and entries waiting for one. */
export interface SlotLoad {
  running: number;
  waiting: number;
}

/**
 * Who a freed slot goes to. `arrival`: the waiter that came first. `fair`: the waiting holder with the
 * fewest entries holding slots, ties to the one served longest ago (round-robin), so a newcomer is
 * served as soon as any slot frees however many entries others queued.
 */
export type SlotOrder = 'arrival' | 'fair';

export interface BoundedSlotsOptions {
  /** Entries holding a slot at once. */
  slots: number;
  /** Entries waiting in all; beyond that `enter` refuses at once. */
  maxWaiting: number;
  /** Entries one holder may have holding or waiting; beyond that `enter` refuses at once. */
  perHolder: number;
  order: SlotOrder;
  /** What `enter` throws: `held` is what the holder already has, `load` what the slots carry. */
  refusals: { holderFull: (held: number) => Error; queueFull: (load: SlotLoad) => Error };
  /** Gives a waiter up after `ms` with `error()`; without it a waiter waits until served, aborted or cancelled. */
  maxWait?: { ms: number; error: () => Error };
  /** What `turn` rejects with when the ticket is cancelled before its turn. */
  withdrawn?: () => Error;
}

/** A place in the queue: `turn` resolves with the function that frees the slot (safe to call more than once). */
export interface SlotTicket {
  turn: Promise<() => void>;
  /** Leaves the queue (or frees the slot) without running; safe to call more than once. */
  cancel(): void;
}

export interface BoundedSlots {
  /**
   * Takes a place for `holder`, or throws a refusal at once when a cap is reached. When `signal` aborts
   * before the turn comes, the place is left and `turn` rejects with the signal's reason; a function is
   * called only if the entry has to wait.
   */
  enter(holder: string, signal?: AbortSignal | (() => AbortSignal)): SlotTicket;
  load(): SlotLoad;
}

interface Waiter {
  holder: string;
  grant: (free: () => void) => void;
}

/** A bounded semaphore with per-holder caps; a freed slot is handed straight to the next waiter. */
export function createBoundedSlots(options: BoundedSlotsOptions): BoundedSlots {
  let running = 0;
  const waiting: Waiter[] = [];
  /** Per holder: entries holding a slot or waiting (entries at zero are removed). */
  const inFlight = new Map<string, number>();
  const holding = new Map<string, number>();
  const order = options.order === 'fair' ? fairOrder(holding) : ARRIVAL_ORDER;

  function dispatch(): void {
    while (running < options.slots && waiting.length > 0) {
      const w = waiting.splice(order.pick(waiting), 1)[0]!;
      running++;
      bump(holding, w.holder, 1);
      order.served(w.holder);
      let freed = false;
      w.grant(() => {
        if (freed) return;
        freed = true;
        running--;
        bump(holding, w.holder, -1);
        bump(inFlight, w.holder, -1);
        dispatch();
      });
    }
  }

  return {
    enter(holder, signalOf) {
      const held = inFlight.get(holder) ?? 0;
      if (held >= options.perHolder) throw options.refusals.holderFull(held);
      if (running >= options.slots && waiting.length >= options.maxWaiting) throw options.refusals.queueFull({ running, waiting: waiting.length });
      // A slot is free exactly when no one waits: then the entry is served at once and needs no signal.
      const signal = running < options.slots ? undefined : typeof signalOf === 'function' ? signalOf() : signalOf;
      bump(inFlight, holder, 1);

      let free: (() => void) | undefined;
      let timer: NodeJS.Timeout | undefined;
      let resolveTurn!: (free: () => void) => void;
      let fail!: (reason: unknown) => void;
      const turn = new Promise<() => void>((resolve, reject) => {
        resolveTurn = resolve;
        fail = reject;
      });
      // Not awaited when the caller gives up first: never an unhandled rejection.
      turn.catch(() => undefined);

      const stopWatching = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };
      /** Removes the waiter if it was not served yet; false when it was (or it left already). */
      const leave = (): boolean => {
        const at = waiting.indexOf(waiter);
        if (at < 0) return false;
        waiting.splice(at, 1);
        stopWatching();
        bump(inFlight, holder, -1);
        return true;
      };
      const onAbort = (): void => {
        if (leave()) fail(signal?.reason ?? new Error('aborted'));
      };
      const waiter: Waiter = {
        holder,
        grant(f) {
          stopWatching();
          free = f;
          resolveTurn(f);
        },
      };

      const { maxWait } = options;
      if (maxWait) {
        timer = setTimeout(() => {
          if (leave()) fail(maxWait.error());
        }, maxWait.ms);
      }
      waiting.push(waiter);
      dispatch();
      if (signal?.aborted) onAbort();
      else signal?.addEventListener('abort', onAbort, { once: true });

      let done = false;
      return {
        turn,
        cancel() {
          if (done) return;
          done = true;
          if (free) free();
          else if (leave()) fail(options.withdrawn?.() ?? new Error('withdrawn'));
        },
      };
    },
    load: () => ({ running, waiting: waiting.length }),
  };
}

interface TurnOrder {
  /** The index in `waiting` (never empty) of the waiter served next. */
  pick(waiting: readonly Waiter[]): number;
  served(holder: string): void;
}

const ARRIVAL_ORDER: TurnOrder = { pick: () => 0, served: () => undefined };

function fairOrder(holding: ReadonlyMap<string, number>): TurnOrder {
  /** When each holder was last given a slot, as a counter. */
  const lastServed = new Map<string, number>();
  let served = 0;
  return {
    pick(waiting) {
      let best = 0;
      for (let i = 1; i < waiting.length; i++) {
        const [w, b] = [waiting[i]!.holder, waiting[best]!.holder];
        const [hw, hb] = [holding.get(w) ?? 0, holding.get(b) ?? 0];
        if (hw < hb || (hw === hb && (lastServed.get(w) ?? -1) < (lastServed.get(b) ?? -1))) best = i;
      }
      return best;
    },
    served: (holder) => void lastServed.set(holder, ++served),
  };
}

function bump(map: Map<string, number>, key: string, by: number): void {
  const next = (map.get(key) ?? 0) + by;
  if (next <= 0) map.delete(key);
  else map.set(key, next);
}
