import { afterEach, describe, expect, it } from 'vitest';
import { createFakeClock } from '../../../src/lib/clock.js';
import { admit, DEFAULT_QUOTA, unitsOf, usageOf } from '../../../src/domain/sandbox/sandbox-quota.js';
import { createSandboxService } from '../../../src/domain/sandbox/sandbox.service.js';
import { createFairSlots, DEFAULT_FAIR_SLOTS, type FairSlotsOptions } from '../../../src/domain/sandbox/fair-slots.js';
import type { RunOutcome, RunRequest, SandboxRunner } from '../../../src/domain/sandbox/sandbox-runner.js';
import { makeLowdbHarness } from '../../store/lowdb-harness.js';
import { storageOf } from '../../helpers/repositories.js';

const HOUR = 60 * 60 * 1000;

/** A runner that pretends each run took `durationMs` and records the limits it was given. */
function fakeRunner(durationMs: number): SandboxRunner & { requests: RunRequest[] } {
  const requests: RunRequest[] = [];
  return {
    requests,
    ready: async () => undefined,
    run: async (request): Promise<RunOutcome> => {
      requests.push(request);
      const duration = Math.min(durationMs, request.timeoutMs);
      return {
        exit_code: duration < durationMs ? 124 : 0,
        reason: duration < durationMs ? 'timeout' : 'exit',
        stdout: 'ok\n',
        stderr: '',
        stdout_truncated: false,
        stderr_truncated: false,
        duration_ms: duration,
      };
    },
  };
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function setup(durationMs = 50, slots: Partial<FairSlotsOptions> = {}) {
  const harness = await makeLowdbHarness({ fsync: false });
  cleanups.push(harness.cleanup);
  const clock = createFakeClock(Date.UTC(2026, 0, 1));
  const runner = fakeRunner(durationMs);
  const sandbox = createSandboxService({ ...storageOf(harness.store), clock, runner, slots: createFairSlots({ ...DEFAULT_FAIR_SLOTS, ...slots }) });
  const run = (uid = 'agent1', timeout_ms = 10_000) => sandbox.run(uid, { code: 'print(1)', timeout_ms, slug: null, actor_uid: uid });
  return { clock, runner, sandbox, run };
}

describe('sandbox quota arithmetic', () => {
  it('charges wall time in mz rounded up', () => {
    expect(unitsOf(0.777)).toBe(1);
    expect(unitsOf(0.778)).toBe(2);
    expect(unitsOf(46_620)).toBe(60_000);
  });

  it('forgets charges older than the window and says when the oldest leaves', () => {
    const now = 100 * HOUR;
    const usage = usageOf(
      [
        { started_ms: now - 25 * HOUR, units_mz: 10 },
        { started_ms: now - 2 * HOUR, units_mz: 5 },
      ],
      now,
      DEFAULT_QUOTA,
    );
    expect(usage).toEqual({ runs_used: 1, units_used_mz: 5, next_free_ms: now + 22 * HOUR });
  });

  it('refuses on units with the time enough units free up, not merely the next one', () => {
    const now = 100 * HOUR;
    const charges = [
      { started_ms: now - 20 * HOUR, units_mz: 10 },
      { started_ms: now - 10 * HOUR, units_mz: 59_900 },
    ];
    const verdict = admit(charges, now, DEFAULT_QUOTA);
    expect(verdict).toMatchObject({ ok: false, reason: 'units', retry_at_ms: now - 10 * HOUR + 24 * HOUR });
  });
});

describe('sandbox quota window on a fake clock', () => {
  it('allows 20 runs in 24 h, refuses the 21st with when the next run frees up, and frees it a day later', async () => {
    const { clock, sandbox, run } = await setup();
    const first = clock.now();
    for (let i = 0; i < 20; i++) {
      await run();
      clock.advance(60_000);
    }
    const quota = await sandbox.quota('agent1');
    expect(quota).toMatchObject({ runs_used: 20, runs_limit: 20, units_limit_mz: 60_000, next_free_at: new Date(first + 24 * HOUR).toISOString() });
    await expect(run()).rejects.toMatchObject({
      code: 'QUOTA_EXCEEDED',
      status: 429,
      details: { reason: 'runs', next_free_at: new Date(first + 24 * HOUR).toISOString() },
    });
    // Another agent has its own window.
    await expect(run('agent2')).resolves.toMatchObject({ ok: true });

    clock.set(first + 24 * HOUR - 1);
    await expect(run()).rejects.toMatchObject({ code: 'QUOTA_EXCEEDED' });
    clock.set(first + 24 * HOUR + 1);
    const again = await run();
    expect(again.quota.runs_used).toBe(20);
  });

  it('never lets runs spend more than 60,000 mz: the last run is cut to what is left', async () => {
    const { sandbox, runner, run, clock } = await setup(30_000);
    const first = await run('agent1', 30_000);
    expect(first.units_mz).toBe(unitsOf(30_000));
    clock.advance(1000);
    const second = await run('agent1', 30_000);
    const left = 60_000 - unitsOf(30_000);
    expect(runner.requests[1]!.timeoutMs).toBe(Math.floor(left * 0.777));
    expect(second.timeout_ms).toBe(runner.requests[1]!.timeoutMs);
    expect(second.exit_code).toBe(124);
    const quota = await sandbox.quota('agent1');
    expect(quota.units_used_mz).toBeLessThanOrEqual(60_000);
    await expect(run()).rejects.toMatchObject({ code: 'QUOTA_EXCEEDED', details: { reason: 'units' } });
  });

  it('counts runs still in flight, so parallel calls cannot overshoot the run limit', async () => {
    // Slots are shared fairly (one agent may queue only a few runs); here every call may wait, to test the quota alone.
    const { run } = await setup(50, { perIdentity: 100, maxWaiting: 100 });
    // Each run in flight holds its time limit's worth of units (1 s = 1,288 mz) until it is recorded.
    const results = await Promise.allSettled(Array.from({ length: 25 }, () => run('agent1', 1000)));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(20);
    expect(results.filter((r) => r.status === 'rejected')).toHaveLength(5);
  });

  it('lists runs newest first with a limit, a cursor and a slug filter', async () => {
    const { sandbox, clock } = await setup();
    for (let i = 0; i < 5; i++) {
      await sandbox.run('agent1', { code: `print(${i})`, timeout_ms: 1000, slug: i % 2 === 0 ? 'even' : null, actor_uid: 'agent1' });
      clock.advance(1000);
    }
    const page = await sandbox.runs('agent1', { limit: 2 });
    expect(page.runs.map((r) => r.started_at)).toEqual([...page.runs.map((r) => r.started_at)].sort().reverse());
    expect(page.runs).toHaveLength(2);
    const rest = await sandbox.runs('agent1', { limit: 10, cursor: page.next_cursor! });
    expect(rest.runs).toHaveLength(3);
    expect(rest.next_cursor).toBeNull();
    const even = await sandbox.runs('agent1', { limit: 2, slug: 'even' });
    expect(even.runs.map((r) => r.slug)).toEqual(['even', 'even']);
    const evenRest = await sandbox.runs('agent1', { limit: 2, slug: 'even', cursor: even.next_cursor! });
    expect(evenRest.runs).toHaveLength(1);
  });
});
