/** 1 mz (milli-tick) is 0.777 ms of wall time. */
export const MS_PER_MZ = 0.777;

export interface QuotaLimits {
  windowMs: number;
  runs: number;
  unitsMz: number;
  /** Shortest run worth admitting: below this much of the unit budget left, a run is refused. */
  minRunMs: number;
}

/** The service's quota: a rolling 24 h window of 20 runs and 60,000 mz per agent. */
export const DEFAULT_QUOTA: QuotaLimits = Object.freeze({ windowMs: 24 * 60 * 60 * 1000, runs: 20, unitsMz: 60_000, minRunMs: 100 });

/** One run charged to the window: finished (its measured units) or in flight (the units it reserved). */
export interface Charge {
  started_ms: number;
  units_mz: number;
}

export interface Usage {
  runs_used: number;
  units_used_mz: number;
  /** When the oldest charge leaves the window; null when the window is empty. */
  next_free_ms: number | null;
}

export type Admission = { ok: true; remaining_mz: number; usage: Usage } | { ok: false; reason: 'runs' | 'units'; retry_at_ms: number; usage: Usage };

/** Wall time in mz, rounded up: any started milli-tick is charged. */
export function unitsOf(durationMs: number): number {
  return Math.ceil(durationMs / MS_PER_MZ - 1e-9);
}

/** The charges still inside the window at `nowMs`, oldest first. */
export function inWindow(charges: readonly Charge[], nowMs: number, limits: QuotaLimits): Charge[] {
  return charges.filter((c) => c.started_ms > nowMs - limits.windowMs).sort((a, b) => a.started_ms - b.started_ms);
}

export function usageOf(charges: readonly Charge[], nowMs: number, limits: QuotaLimits): Usage {
  const live = inWindow(charges, nowMs, limits);
  return {
    runs_used: live.length,
    units_used_mz: live.reduce((sum, c) => sum + c.units_mz, 0),
    next_free_ms: live.length > 0 ? live[0]!.started_ms + limits.windowMs : null,
  };
}

/**
 * Whether one more run may start now. A run needs a free run slot and at least `minRunMs` worth of
 * units; when refused, `retry_at_ms` is the first time both hold again as older charges leave the window.
 */
export function admit(charges: readonly Charge[], nowMs: number, limits: QuotaLimits): Admission {
  const live = inWindow(charges, nowMs, limits);
  const usage = usageOf(live, nowMs, limits);
  const minUnits = unitsOf(limits.minRunMs);
  const fits = (runs: number, units: number) => runs < limits.runs && limits.unitsMz - units >= minUnits;
  if (fits(usage.runs_used, usage.units_used_mz)) {
    return { ok: true, remaining_mz: limits.unitsMz - usage.units_used_mz, usage };
  }
  const reason = usage.runs_used >= limits.runs ? 'runs' : 'units';
  let runs = usage.runs_used;
  let units = usage.units_used_mz;
  for (const charge of live) {
    runs -= 1;
    units -= charge.units_mz;
    if (fits(runs, units)) return { ok: false, reason, retry_at_ms: charge.started_ms + limits.windowMs, usage };
  }
  return { ok: false, reason, retry_at_ms: nowMs + limits.windowMs, usage };
}
