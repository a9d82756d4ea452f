import { CoreError } from '../../errors.js';
import { MAX_UNITS, runWithAccount, type MeterAccount } from './condition-meter.js';

/**
 * How much condition work (in meter units, about a nanosecond each: `condition-meter.ts`) one holder may
 * spend in a window, and how many metered calls it may have in flight at once.
 */
export interface AllowanceLimits {
  unitsPerWindow: number;
  windowMs: number;
  /** Metered calls (that count toward it) one holder may have running at once; beyond that RATE_LIMITED. */
  concurrent: number;
}

/**
 * Anonymous and free-tier callers: 100 ms of condition work every 10 s (1 % of a core), two calls at
 * once. Twenty refused worst cases (5 ms each) fit in a window; honest conditions cost microseconds.
 */
export const LIMITED_CALLERS: AllowanceLimits = Object.freeze({ unitsPerWindow: 100_000_000, windowMs: 10_000, concurrent: 2 });
/**
 * Scheduled and event fires, per contract owner: 2 s of condition work a minute (3 % of a core), so an
 * owner's many contracts firing every tick cannot take the node's loop.
 */
export const CONTRACT_OWNERS: AllowanceLimits = Object.freeze({ unitsPerWindow: 2_000_000_000, windowMs: 60_000, concurrent: Infinity });

/** Most holders remembered; the least recently seen is dropped first (it loses a partly spent window). */
const MAX_HOLDERS = 50_000;

type Window = { start: number; spent: number; running: number };

export interface ConditionAllowance {
  /** Units `holder` may still spend in its current window (0 when spent). */
  left(holder: string): number;
  /** Seconds until `holder`'s window renews. */
  retryAfterS(holder: string): number;
  /** Adds units spent by `holder`. */
  spend(holder: string, units: number): void;
  /**
   * Runs `work` as one metered call of `holder`: refuses it with RATE_LIMITED (and `retry_after_s`) at once
   * when the holder has spent its window or, for a call that `counts` toward concurrency, already has
   * `concurrent` such calls in flight; else charges every condition evaluated inside it (across awaits)
   * to the holder.
   */
  run<T>(holder: string, work: () => Promise<T>, who: string, counts?: boolean): Promise<T>;
  /** A single evaluation's unit limit for `holder`: what is left, at most one evaluation's budget. */
  evaluationUnits(holder: string): number;
}

/** A per-holder allowance of condition work over fixed windows; time from `now` (the injected clock). */
export function createConditionAllowance(limits: AllowanceLimits, now: () => number): ConditionAllowance {
  const windows = new Map<string, Window>();
  const windowOf = (holder: string): Window => {
    const t = now();
    let w = windows.get(holder);
    if (w) windows.delete(holder); // re-inserted below: Map order is least recently seen first
    if (!w) {
      w = { start: t, spent: 0, running: 0 };
      if (windows.size >= MAX_HOLDERS) windows.delete(windows.keys().next().value!);
    } else if (t - w.start >= limits.windowMs) {
      w.start = t;
      w.spent = 0;
    }
    windows.set(holder, w);
    return w;
  };
  const left = (holder: string) => Math.max(0, limits.unitsPerWindow - windowOf(holder).spent);
  const retryAfterS = (holder: string) => Math.max(1, Math.ceil((windowOf(holder).start + limits.windowMs - now()) / 1000));
  return {
    left,
    retryAfterS,
    spend(holder, units) {
      windowOf(holder).spent += units;
    },
    evaluationUnits: (holder) => Math.min(MAX_UNITS, left(holder)),
    async run(holder, work, who, counts = true) {
      const w = windowOf(holder);
      if (counts && w.running >= limits.concurrent) {
        throw new CoreError(
          'RATE_LIMITED',
          `At most ${limits.concurrent} simulations or dry-runs may run at once for ${who}; wait for one to finish, or send a key of a paid tier`,
          { retry_after_s: 1, limit: 'condition_concurrency' },
        );
      }
      if (w.spent >= limits.unitsPerWindow) {
        const wait = retryAfterS(holder);
        throw new CoreError(
          'RATE_LIMITED',
          `${who} spent its condition budget (${limits.unitsPerWindow / 1e6} ms of work every ${limits.windowMs / 1000} s); retry in ${wait} s, evaluate conditions over smaller inputs, or send a key of a paid tier`,
          { retry_after_s: wait, limit: 'condition_budget' },
        );
      }
      const account: MeterAccount = { spent: 0 };
      if (counts) w.running++;
      try {
        return await runWithAccount(account, work);
      } finally {
        if (counts) w.running--;
        w.spent += account.spent;
      }
    },
  };
}
