import { TICK_MS, tickOf, tickStartMs, type Clock } from '../../lib/clock.js';

/** Longest sleep between passes, so a wall-clock jump is noticed within a minute. */
const MAX_SLEEP_MS = 60_000;
/** Pause before claiming again a fire another process holds: it may have died holding it. */
const BUSY_RETRY_MS = 100;

/**
 * Fires of one pass under way at once. A pass of 75,000 (the catch-up after a long stop) started every
 * one of them together: their reads, locks and rows in memory at once, and none finished until most
 * had started. Enough to fill the store's lock slots and share group commits many times over.
 */
const MAX_IN_FLIGHT = 512;

/** What `fireDue` returns when another process holds the contract's claim: try again shortly, same tick. */
export const CLAIMED_ELSEWHERE = 'claimed-elsewhere';

export interface SchedulerDeps {
  clock: Clock;
  /** Every contract that may fire by itself, with its next due tick (undefined: none scheduled). */
  loadAll(): Promise<Array<[id: string, due: number | undefined]>>;
  /**
   * Fires what is due for one contract at `nowTick` (under its lock) and returns its next due tick, or
   * `CLAIMED_ELSEWHERE` when another process holds the claim (the fire is retried within the tick, so a
   * holder that died mid-fire is taken over without the due tick collapsing into the next one).
   */
  fireDue(id: string, nowTick: number): Promise<number | undefined | typeof CLAIMED_ELSEWHERE>;
  onError(err: unknown): void;
  /** Told after each scheduled fire how long after the start of its due tick it finished (metrics). */
  onFire?(lagMs: number): void;
  /** Fires of a pass under way at once (default `MAX_IN_FLIGHT`). */
  maxInFlight?: number;
  /**
   * With several processes on one store: contracts created or changed elsewhere since the last call,
   * with their next due tick. Called before each timed pass, and passes then run at least every tick.
   */
  poll?(): Promise<Array<[id: string, due: number | undefined]>>;
}

/**
 * Fires scheduled contract transitions on the tick. It keeps each contract's next due tick in memory
 * and sleeps until the earliest one starts, on a timer re-armed against that absolute time (a
 * `setInterval` drifts and bunches up after the event loop stalls). A pass fires every contract whose
 * due tick has started, longest due first, many at once so their log appends share group commits (at most
 * `maxInFlight`, so a pass of tens of thousands does not start them all together); passes never
 * overlap. Once-only firing does not rest on this class: each fire advances the contract's durable
 * watermark, so a repeated pass, a restart or a clock stepping back finds nothing due twice.
 * Tests drive it with `runDue(now)` on a fake clock.
 */
export class ContractScheduler {
  readonly #deps: SchedulerDeps;
  readonly #due = new Map<string, number>();
  #timer: NodeJS.Timeout | undefined;
  #armedFor: number | undefined;
  #pass: Promise<number> | undefined;
  /** The timer's work in progress: a poll, then a pass. */
  #woken: Promise<void> | undefined;
  #running = false;
  /** A claim was held elsewhere in the last pass: the next pass comes after `BUSY_RETRY_MS`, not at once. */
  #busy = false;
  /** A poll asked for out of turn (`pollNow`) in progress. */
  #polling: Promise<void> | undefined;

  constructor(deps: SchedulerDeps) {
    this.#deps = deps;
  }

  /** Loads every contract's next due tick and arms the timer. */
  async start(): Promise<void> {
    if (this.#running) return;
    this.#running = true;
    // Armed once for all of them: `set` would scan every due tick again for each one earlier than the last.
    for (const [id, due] of await this.#deps.loadAll()) if (due !== undefined) this.#due.set(id, due);
    this.#arm();
  }

  /** Stops the timer and waits for a poll or pass in progress; nothing reads the store after it resolves. */
  async stop(): Promise<void> {
    this.#running = false;
    this.#clear();
    await this.#polling;
    await this.#woken;
    await this.#pass?.catch(() => undefined);
  }

  /** Records a contract's next due tick (undefined removes it) and wakes earlier if needed. */
  set(id: string, due: number | undefined): void {
    if (due === undefined) this.#due.delete(id);
    else this.#due.set(id, due);
    // A timed pass re-arms when it is done: arming for each contract it fires (`#arm` scans every due tick)
    // made a pass over n contracts cost n² (minutes at 30,000).
    if (due !== undefined && this.#running && this.#woken === undefined && (this.#armedFor === undefined || due < this.#armedFor)) this.#arm();
  }

  /**
   * Moves a known contract's next due tick later, never earlier: another process fired it and says when
   * it is due next, so this one need not claim it to find that out. An unknown contract is left to `poll`.
   */
  advance(id: string, due: number): void {
    const current = this.#due.get(id);
    if (current !== undefined && current < due) this.#due.set(id, due);
  }

  /**
   * Polls at once instead of at the next timed pass, then re-arms the timer for what it found: after
   * the messaging connection came back, changes announced meanwhile were lost. Polls asked for while
   * one runs follow it.
   */
  pollNow(): Promise<void> {
    const poll = this.#deps.poll?.bind(this.#deps);
    if (!this.#running || poll === undefined) return Promise.resolve();
    const polling: Promise<void> = (this.#polling ?? Promise.resolve())
      .then(() => (this.#running ? this.#absorb(poll) : undefined))
      .finally(() => {
        if (this.#polling === polling) this.#polling = undefined;
        // Unless a timed pass is under way: it re-arms when it is done.
        if (this.#running && this.#woken === undefined) this.#arm();
      });
    this.#polling = polling;
    return polling;
  }

  /** Next due tick per contract, for inspection. */
  dueOf(id: string): number | undefined {
    return this.#due.get(id);
  }

  /** Fires everything due at `nowMs` (default: the clock); resolves with the number of contracts visited. */
  runDue(nowMs: number = this.#deps.clock.now()): Promise<number> {
    const previous = this.#pass ?? Promise.resolve(0);
    const pass = previous.catch(() => 0).then(() => this.#runPass(tickOf(nowMs)));
    this.#pass = pass;
    return pass;
  }

  async #runPass(nowTick: number): Promise<number> {
    // The longest due first: when a pass cannot fire everything within its tick, the oldest do not wait longest.
    const due = [...this.#due].filter(([, tick]) => tick <= nowTick).sort((a, b) => a[1] - b[1]);
    this.#busy = false;
    let taken = 0;
    const lanes = Math.min(due.length, Math.max(1, this.#deps.maxInFlight ?? MAX_IN_FLIGHT));
    await Promise.all(
      Array.from({ length: lanes }, async () => {
        while (taken < due.length) await this.#fireOne(...due[taken++]!, nowTick);
      }),
    );
    return due.length;
  }

  async #fireOne(id: string, dueTick: number, nowTick: number): Promise<void> {
    try {
      const next = await this.#deps.fireDue(id, nowTick);
      if (next === CLAIMED_ELSEWHERE) {
        // Still due, unless the holder announces its next due tick meanwhile (`advance`).
        this.#busy = true;
        return;
      }
      this.set(id, next);
      this.#deps.onFire?.(this.#deps.clock.now() - tickStartMs(dueTick));
    } catch (err) {
      this.#deps.onError(err);
      // Retried next tick rather than in a tight loop.
      this.set(id, nowTick + 1);
    }
  }

  #arm(): void {
    this.#clear();
    if (!this.#running) return;
    let earliest: number | undefined;
    for (const due of this.#due.values()) if (earliest === undefined || due < earliest) earliest = due;
    const wait = earliest === undefined ? MAX_SLEEP_MS : tickStartMs(earliest) - this.#deps.clock.now();
    this.#armedFor = earliest;
    const poll = this.#deps.poll?.bind(this.#deps);
    this.#timer = setTimeout(
      () => {
        this.#timer = undefined;
        this.#armedFor = undefined;
        const polled = poll === undefined ? Promise.resolve() : this.#absorb(poll);
        // Tracked so `stop` waits for a poll under way (it reads the store) and no pass starts after it.
        const woken: Promise<void> = polled
          .then(async () => {
            if (this.#running) await this.runDue();
          })
          .catch((err: unknown) => this.#deps.onError(err))
          .finally(() => {
            if (this.#woken === woken) this.#woken = undefined;
            this.#arm();
          });
        this.#woken = woken;
      },
      Math.min(poll === undefined ? MAX_SLEEP_MS : TICK_MS, Math.max(this.#busy ? BUSY_RETRY_MS : 0, wait)),
    );
    this.#timer.unref();
  }

  async #absorb(poll: NonNullable<SchedulerDeps['poll']>): Promise<void> {
    try {
      for (const [id, due] of await poll()) {
        if (due === undefined) this.#due.delete(id);
        else this.#due.set(id, due);
      }
    } catch (err) {
      this.#deps.onError(err);
    }
  }

  #clear(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#armedFor = undefined;
  }
}
