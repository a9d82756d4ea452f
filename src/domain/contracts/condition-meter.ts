import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The meter of one CEL evaluation. Conditions come from callers and run on the event loop, so every
 * evaluation is charged by the work it does, in units of about a nanosecond of work (the cost table is in
 * `condition-budget.ts`, which installs the hooks that charge), and stops:
 *
 * - at `MAX_UNITS` units, deterministically (the same condition over the same input always stops at the
 *   same point, whatever the load), and
 * - at `DEADLINE_MS` of the process's CPU time, a backstop against any cost the table under-prices: the
 *   clock is read inside the hooks every `CLOCK_EVERY` units, so an evaluation overruns it by at most one
 *   slice. CPU time, not wall time: on a loaded machine a process waits for a core, and a wall-clock
 *   deadline then refuses cheap conditions (measured: a 1 ms condition took 21 ms of wall time at load 16
 *   on 2 cores); time spent waiting blocks nobody. It is 5x the unit budget's nominal time because a
 *   condition's first runs are not yet compiled by V8 and cost several times their warm price.
 *
 * Both refusals are a `MeterExceeded` naming the limit. The meter is module state: evaluation is
 * synchronous (no async functions are registered), so one evaluation runs from start to end before
 * another starts.
 */
export const MAX_UNITS = 5_000_000;
export const DEADLINE_MS = 25;
/** Units between two clock reads: about 0.25 ms of work (a unit is about a nanosecond); a read (`process.cpuUsage`, 0.5-2 µs) then costs under 1 %. */
export const CLOCK_EVERY = 262_144;

/** The process's CPU time in milliseconds. */
export const cpuMs = (): number => {
  const used = process.cpuUsage();
  return (used.user + used.system) / 1000;
};

export type MeterLimit = 'units' | 'deadline';

/** Thrown when an evaluation spends its units or outlives its deadline. */
export class MeterExceeded extends Error {
  constructor(
    readonly limit: MeterLimit,
    readonly spent: number,
  ) {
    super(
      limit === 'units'
        ? `the expression needs more than ${MAX_UNITS} units of work (about ${MAX_UNITS / 1e6} ms: a character scanned or produced costs 1, an element 8, an evaluation step 40); iterate over fewer elements, work on shorter strings, or avoid re-scanning a long string inside all/exists/map/filter`
        : `the expression ran past its ${DEADLINE_MS} ms deadline of CPU time; iterate over fewer elements or work on shorter strings`,
    );
  }
}

/** Optional overrides of one evaluation's limits; tests hand a fake clock (`now`, in ms). */
export interface MeterOptions {
  units?: number;
  deadlineMs?: number;
  now?: () => number;
}

/**
 * Units spent by everything evaluated inside `runWithAccount` (a request, a scheduled fire), for the
 * caller-level budget. Read once per evaluation, never per charge.
 */
export interface MeterAccount {
  spent: number;
}

const accounts = new AsyncLocalStorage<MeterAccount>();

/** Runs `fn` with every evaluation inside it (across awaits) adding its units to `account`. */
export function runWithAccount<T>(account: MeterAccount, fn: () => T): T {
  return accounts.run(account, fn);
}

let left = MAX_UNITS;
let limitUnits = MAX_UNITS;
let sinceClock = 0;
let deadline = Infinity;
let clock: () => number = cpuMs;
let exceeded: MeterExceeded | undefined;
let active = false;

/** Charges `units` of work to the running evaluation; throws `MeterExceeded` past a limit. A no-op outside one. */
export function charge(units: number): void {
  if (!active) return;
  // Once refused, every later charge refuses too: CEL's error absorption (`exists`, `||`) must not carry on.
  if (exceeded) throw exceeded;
  left -= units;
  if (left < 0) {
    exceeded ??= new MeterExceeded('units', limitUnits - left);
    throw exceeded;
  }
  sinceClock += units;
  if (sinceClock >= CLOCK_EVERY) {
    sinceClock = 0;
    if (clock() > deadline) {
      exceeded ??= new MeterExceeded('deadline', limitUnits - left);
      throw exceeded;
    }
  }
}

export interface Metered<T> {
  value?: T;
  error?: unknown;
  /** Set when a limit was reached anywhere inside, even where CEL's error absorption (`a || b`, `exists`) let a value through. */
  exceeded?: MeterExceeded;
  /** Units the evaluation spent (up to the limit when it was refused). */
  spent: number;
}

/** Read through a call: the compiler cannot see that `run` may have set it. */
const refusal = (): MeterExceeded | undefined => exceeded;

/** Runs one evaluation with fresh limits and reports what it spent. */
export function withMeter<T>(run: () => T, opts: MeterOptions = {}): Metered<T> {
  limitUnits = opts.units ?? MAX_UNITS;
  left = limitUnits;
  sinceClock = 0;
  clock = opts.now ?? cpuMs;
  deadline = clock() + (opts.deadlineMs ?? DEADLINE_MS);
  exceeded = undefined;
  active = true;
  let out: Metered<T>;
  try {
    const value = run();
    const hit = refusal();
    out = hit ? { exceeded: hit, spent: hit.spent } : { value, spent: limitUnits - left };
  } catch (error) {
    const hit = refusal();
    out = hit ? { error, exceeded: hit, spent: hit.spent } : { error, spent: limitUnits - left };
  } finally {
    active = false;
    exceeded = undefined;
  }
  const account = accounts.getStore();
  if (account) account.spent += out.spent;
  return out;
}
