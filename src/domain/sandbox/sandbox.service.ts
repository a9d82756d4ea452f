import { randomUUID } from 'node:crypto';
import { CoreError } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import { decodeCursor, encodeCursor } from '../../lib/cursor.js';
import { tickOf } from '../../lib/clock.js';
import { sha256Hex } from '../../lib/hash.js';
import type { LockStore } from '../../storage/port.js';
import { admit, DEFAULT_QUOTA, MS_PER_MZ, unitsOf, usageOf, type Charge, type QuotaLimits } from './sandbox-quota.js';
import { afterCommit } from '../../lib/commit-scope.js';
import { createFairSlots, type FairSlots } from './fair-slots.js';
import type { RunOutcome, SandboxRunner } from './sandbox-runner.js';
import { type Reservation, type Reservations, type RunRow, type SandboxRunView, type SandboxRunRepository } from './sandbox-run-repository.js';

export interface QuotaView {
  window_hours: 24;
  runs_used: number;
  runs_limit: number;
  units_used_mz: number;
  units_limit_mz: number;
  next_free_at: string | null;
}

export interface RunInput {
  code: string;
  stdin?: string;
  timeout_ms: number;
  slug: string | null;
  /** Who made the call: the agent itself or the owner of `slug`. */
  actor_uid: string;
  /**
   * Re-checks the caller's right (its credential, the agent's delegation) when the run gets its slot;
   * throws the refusal. A run refused then is not started and not charged.
   */
  stillAllowed?: () => Promise<void>;
}

export interface SandboxService {
  /**
   * Runs code for an agent once the rolling quota admits it (429 QUOTA_EXCEEDED otherwise, with when
   * the next run frees up) and a slot is free (429 RATE_LIMITED when the agent already has runs
   * waiting, the queue is full, or no slot freed in time; slots go round-robin between agents). The
   * run's own outcome is in `ok` and `exit_code`; the call itself succeeds.
   */
  run(uid: string, input: RunInput): Promise<SandboxRunView & { quota: QuotaView }>;
  /** The agent's runs, newest first, optionally only those made for one machine. */
  runs(uid: string, query: { limit: number; cursor?: string; slug?: string }): Promise<{ runs: SandboxRunView[]; next_cursor: string | null }>;
  quota(uid: string): Promise<QuotaView>;
}

/**
 * How long past its wait and time limit a reservation counts: enough to record the run, short enough to
 * free a crashed one. The process that made a reservation (see `sandbox-run-repository.ts`) also keeps it
 * in memory and counts it until the run is recorded, whatever its expiry; the expiry only frees the
 * reservations of a process that died, and covers the longest wait for a slot plus the time limit, so
 * other processes never drop a run that is still waiting or running.
 */
const RESERVATION_GRACE_MS = 60_000;

/** The reservations that have not expired at `nowMs`. */
function live(current: Reservations | undefined, nowMs: number): Record<string, Reservation> {
  return Object.fromEntries(Object.entries(current?.runs ?? {}).filter(([, r]) => r.expires_ms > nowMs));
}

export function createSandboxService(deps: {
  sandboxRuns: SandboxRunRepository;
  locks: LockStore;
  clock: Clock;
  runner: SandboxRunner;
  limits?: QuotaLimits;
  slots?: FairSlots;
}): SandboxService {
  const { sandboxRuns, locks, clock, runner } = deps;
  const limits = deps.limits ?? DEFAULT_QUOTA;
  const slots = deps.slots ?? createFairSlots();
  /** This process's reservations, by agent and run id: counted until the run is recorded. */
  const held = new Map<string, Map<string, Charge>>();

  async function charges(uid: string, nowMs: number): Promise<Charge[]> {
    // Reservations first, rows second: a run records its row before it gives up its reservation, so a run
    // that finishes while this reads is seen in one or the other, never in neither. One charge per run id:
    // this process's own runs count even if their stored expiry has passed, and a row replaces its reservation.
    const stored = await sandboxRuns.reservations(uid);
    const byRun = new Map<string, Charge>([...Object.entries(live(stored, nowMs)), ...(held.get(uid) ?? [])]);
    const rows = await sandboxRuns.runsFromTick(uid, tickOf(nowMs - limits.windowMs) - 1);
    for (const r of rows) byRun.set(r.run_id, { started_ms: r.started_ms, units_mz: r.units_mz });
    return [...byRun.values()];
  }

  function quotaView(list: Charge[], nowMs: number): QuotaView {
    const usage = usageOf(list, nowMs, limits);
    return {
      window_hours: 24,
      runs_used: usage.runs_used,
      runs_limit: limits.runs,
      units_used_mz: usage.units_used_mz,
      units_limit_mz: limits.unitsMz,
      next_free_at: usage.next_free_ms === null ? null : new Date(usage.next_free_ms).toISOString(),
    };
  }

  /** Admits a run and reserves its slot and units, atomically per agent. */
  async function reserve(uid: string, runId: string, requestedMs: number): Promise<{ timeoutMs: number; startedMs: number }> {
    await runner.ready();
    // Admission reads the runs and reservations of every process, so it holds the agent's store lock.
    return locks.run(`sandbox-quota:${uid}`, async () => {
      const nowMs = clock.now();
      const verdict = admit(await charges(uid, nowMs), nowMs, limits);
      if (!verdict.ok) {
        const at = new Date(verdict.retry_at_ms).toISOString();
        const what = verdict.reason === 'runs' ? `${limits.runs} runs` : `${limits.unitsMz} mz`;
        throw new CoreError('QUOTA_EXCEEDED', `Sandbox quota of ${what} per rolling 24 h is used up; the next run frees up at ${at}`, {
          reason: verdict.reason,
          next_free_at: at,
          retry_after_ms: Math.max(0, verdict.retry_at_ms - nowMs),
          runs_used: verdict.usage.runs_used,
          units_used_mz: verdict.usage.units_used_mz,
        });
      }
      // The time limit never spends more units than the window has left, so the budget holds exactly.
      const timeoutMs = Math.max(limits.minRunMs, Math.min(requestedMs, Math.floor(verdict.remaining_mz * MS_PER_MZ)));
      const charge: Reservation = { started_ms: nowMs, units_mz: unitsOf(timeoutMs), expires_ms: nowMs + slots.maxWaitMs + timeoutMs + RESERVATION_GRACE_MS };
      await sandboxRuns.updateReservations(uid, (current) => ({
        uid,
        // Reservations of a process that died mid-run expire instead of holding the quota forever.
        runs: { ...live(current, nowMs), [runId]: charge },
      }));
      // Known to this process once the reservation committed (never if the lock's work rolled back).
      afterCommit(() => held.set(uid, (held.get(uid) ?? new Map<string, Charge>()).set(runId, { started_ms: charge.started_ms, units_mz: charge.units_mz })));
      return { timeoutMs, startedMs: nowMs };
    });
  }

  async function release(uid: string, runId: string): Promise<void> {
    const mine = held.get(uid);
    if (mine?.delete(runId) && mine.size === 0) held.delete(uid);
    const nowMs = clock.now();
    await sandboxRuns.updateReservations(uid, (current) => {
      if (current?.runs[runId] === undefined) return undefined;
      const { [runId]: _gone, ...rest } = live(current, nowMs);
      return { uid, runs: rest };
    });
  }

  /** Holds the quota reservation from admission until the run is recorded, however long it waits for its slot. */
  async function reserveAndRun(uid: string, runId: string, input: RunInput, turn: Promise<() => void>): Promise<SandboxRunView & { quota: QuotaView }> {
    const { timeoutMs } = await reserve(uid, runId, input.timeout_ms);
    try {
      const free = await turn;
      // Accepted, then waited: the right it was accepted with may be gone (a delegation or key revoked).
      await input.stillAllowed?.().catch((err: unknown) => {
        free();
        throw refusedAtStart(err);
      });
      const startedMs = clock.now();
      let outcome: RunOutcome;
      try {
        outcome = await runner.run({ code: input.code, timeoutMs, ...(input.stdin !== undefined ? { stdin: input.stdin } : {}) });
      } finally {
        free();
      }
      // A kill lands a little after the limit; the charge never exceeds what was reserved.
      const units = Math.min(unitsOf(outcome.duration_ms), unitsOf(timeoutMs));
      const row = await sandboxRuns.appendRun(uid, {
        type: 'sandbox.run',
        tick: tickOf(startedMs),
        uid,
        actor_uid: input.actor_uid,
        run_id: runId,
        ok: outcome.exit_code === 0,
        exit_code: outcome.exit_code,
        reason: outcome.reason,
        stdout: outcome.stdout,
        stderr: outcome.stderr,
        stdout_truncated: outcome.stdout_truncated,
        stderr_truncated: outcome.stderr_truncated,
        duration_ms: outcome.duration_ms,
        units_mz: units,
        slug: input.slug,
        code_sha256: sha256Hex(input.code),
        timeout_ms: timeoutMs,
        started_ms: startedMs,
        started_at: new Date(startedMs).toISOString(),
      });
      // The row now carries the charge: drop the reservation so the quota below counts the run once.
      await release(uid, runId);
      const nowMs = clock.now();
      return { ...viewOf(row), quota: quotaView(await charges(uid, nowMs), nowMs) };
    } catch (err) {
      await release(uid, runId).catch(() => undefined);
      throw err;
    }
  }

  return {
    async run(uid, input) {
      const runId = `run_${randomUUID()}`;
      // A place in the queue first: a caller over its share is refused before anything is reserved.
      const ticket = slots.enter(uid);
      try {
        return await reserveAndRun(uid, runId, input, ticket.turn);
      } finally {
        ticket.cancel();
      }
    },

    async runs(uid, query) {
      let before = query.cursor === undefined ? undefined : decodeCursor('before', query.cursor);
      const picked: RunRow[] = [];
      let more = false;
      // With a slug filter, read back in batches until the page is full or the log is exhausted.
      for (;;) {
        const batch = await sandboxRuns.newestRuns(uid, query.limit + 1, before);
        for (const row of batch) {
          if (query.slug !== undefined && row.slug !== query.slug) continue;
          if (picked.length === query.limit) {
            more = true;
            break;
          }
          picked.push(row);
        }
        if (more || batch.length <= query.limit) break;
        before = batch[batch.length - 1]!.seq;
      }
      const last = picked[picked.length - 1];
      return { runs: picked.map(viewOf), next_cursor: more && last ? encodeCursor('before', last.seq) : null };
    },

    async quota(uid) {
      const nowMs = clock.now();
      return quotaView(await charges(uid, nowMs), nowMs);
    },
  };
}

/** A refusal at slot start says the run was neither started nor charged; a hidden machine stays NOT_FOUND. */
function refusedAtStart(err: unknown): unknown {
  if (!(err instanceof CoreError) || (err.code !== 'FORBIDDEN' && err.code !== 'UNAUTHENTICATED')) return err;
  return new CoreError('FORBIDDEN', `The run was not started and nothing was charged: while it waited for a slot, the right to run it ended. ${err.message}`);
}

function viewOf(row: RunRow): SandboxRunView {
  return {
    ok: row.ok,
    run_id: row.run_id,
    exit_code: row.exit_code,
    stdout: row.stdout,
    stderr: row.stderr,
    stdout_truncated: row.stdout_truncated,
    stderr_truncated: row.stderr_truncated,
    duration_ms: row.duration_ms,
    units_mz: row.units_mz,
    slug: row.slug,
    code_sha256: row.code_sha256,
    timeout_ms: row.timeout_ms,
    tick: row.tick,
    started_at: row.started_at,
  };
}
