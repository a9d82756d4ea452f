import { afterEach, describe, expect, it, vi } from 'vitest';
import { createFakeClock } from '../../../src/lib/clock.js';
import { createFairSlots, DEFAULT_FAIR_SLOTS, type FairSlotsOptions } from '../../../src/domain/sandbox/fair-slots.js';
import { DEFAULT_QUOTA } from '../../../src/domain/sandbox/sandbox-quota.js';
import { createSandboxService } from '../../../src/domain/sandbox/sandbox.service.js';
import type { RunOutcome, SandboxRunner } from '../../../src/domain/sandbox/sandbox-runner.js';
import { makeLowdbHarness } from '../../store/lowdb-harness.js';
import { storageOf } from '../../helpers/repositories.js';

const HOUR = 60 * 60 * 1000;

/** A runner whose runs end only when the test says so; `started` lists their code in start order. */
function gatedRunner() {
  const started: Array<{ code: string; finish: () => void }> = [];
  const runner: SandboxRunner = {
    ready: async () => undefined,
    run: (request) =>
      new Promise<RunOutcome>((resolve) => {
        started.push({
          code: request.code,
          finish: () => resolve({ exit_code: 0, reason: 'exit', stdout: '', stderr: '', stdout_truncated: false, stderr_truncated: false, duration_ms: 10 }),
        });
      }),
  };
  return { runner, started };
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function setup(slots: Partial<FairSlotsOptions>, runs = DEFAULT_QUOTA.runs) {
  const harness = await makeLowdbHarness({ fsync: false });
  cleanups.push(harness.cleanup);
  const clock = createFakeClock(Date.UTC(2026, 0, 1));
  const { runner, started } = gatedRunner();
  const fair = createFairSlots({ ...DEFAULT_FAIR_SLOTS, ...slots });
  const sandbox = createSandboxService({ ...storageOf(harness.store), clock, runner, slots: fair, limits: { ...DEFAULT_QUOTA, runs } });
  const run = (uid: string, code = uid) => sandbox.run(uid, { code, timeout_ms: 1000, slug: null, actor_uid: uid });
  /** Waits (without depending on speed) until `n` runs have started; the time limit only catches a hang. */
  const startedCount = (n: number) => vi.waitFor(() => expect(started).toHaveLength(n), { timeout: 60_000 });
  return { clock, sandbox, run, started, startedCount, fair };
}

describe('sandbox reservations', () => {
  it("keeps a queued run's reservation until it ends, so the quota never admits more runs than its limit", async () => {
    const { clock, sandbox, run, started, startedCount, fair } = await setup({ slots: 1, perIdentity: 10 }, 3);
    const runs = [run('agent1', 'a'), run('agent1', 'b'), run('agent1', 'c')];
    await startedCount(1);
    await vi.waitFor(() => expect(fair.load()).toEqual({ running: 1, waiting: 2 }), { timeout: 60_000 });
    // Long past each run's time limit and the old grace: the two waiting runs are still counted.
    clock.advance(2 * HOUR);
    expect((await sandbox.quota('agent1')).runs_used).toBe(3);
    await expect(run('agent1', 'd')).rejects.toMatchObject({ code: 'QUOTA_EXCEEDED', status: 429 });
    for (let i = 0; i < 3; i++) {
      await startedCount(i + 1);
      started[i]!.finish();
    }
    await Promise.all(runs);
    expect(started.map((s) => s.code)).toEqual(['a', 'b', 'c']);
    expect((await sandbox.runs('agent1', { limit: 10 })).runs).toHaveLength(3);
    expect((await sandbox.quota('agent1')).runs_used).toBe(3);
  });

  it('gives up a run that waited longer than the wait limit with 429, and frees its reservation', async () => {
    const { sandbox, run, started, startedCount } = await setup({ slots: 1, maxWaitMs: 50 });
    const holder = run('agent1');
    await startedCount(1);
    await expect(run('agent2')).rejects.toMatchObject({ code: 'RATE_LIMITED', status: 429, message: expect.stringContaining('stayed busy') });
    expect((await sandbox.quota('agent2')).runs_used).toBe(0);
    started[0]!.finish();
    await holder;
  });
});

describe('sandbox slots', () => {
  it('serves an agent that arrives later before the runs another agent queued', async () => {
    const { run, started, startedCount, fair } = await setup({ slots: 1, perIdentity: 3 });
    const many = [run('hog', 'hog-1'), run('hog', 'hog-2'), run('hog', 'hog-3')];
    await startedCount(1);
    const late = run('late', 'late-1');
    expect(fair.load()).toEqual({ running: 1, waiting: 3 });
    started[0]!.finish();
    await startedCount(2);
    expect(started[1]!.code).toBe('late-1');
    started[1]!.finish();
    await startedCount(3);
    started[2]!.finish();
    await startedCount(4);
    started[3]!.finish();
    await Promise.all([...many, late]);
    expect(started.map((s) => s.code)).toEqual(['hog-1', 'late-1', 'hog-2', 'hog-3']);
  });

  it('refuses a third run of one agent while two are running or waiting, with a clear 429 and nothing reserved', async () => {
    const { sandbox, run, started, startedCount } = await setup({});
    const two = [run('agent1'), run('agent1')];
    await startedCount(2);
    await expect(run('agent1')).rejects.toMatchObject({ code: 'RATE_LIMITED', status: 429, message: expect.stringContaining('at most 2 per agent') });
    expect((await sandbox.quota('agent1')).runs_used).toBe(2);
    // Another agent is not affected by the first one's share.
    const other = run('agent2');
    started[0]!.finish();
    await startedCount(3);
    started[1]!.finish();
    started[2]!.finish();
    await Promise.all([...two, other]);
  });

  it('refuses a run when the queue is full, with a clear 429', async () => {
    const { run, started, startedCount, fair } = await setup({ slots: 1, perIdentity: 1, maxWaiting: 2 });
    const queued = [run('a'), run('b'), run('c')];
    await startedCount(1);
    await vi.waitFor(() => expect(fair.load()).toEqual({ running: 1, waiting: 2 }), { timeout: 60_000 });
    await expect(run('d')).rejects.toMatchObject({ code: 'RATE_LIMITED', message: expect.stringContaining('busy (2 runs waiting)') });
    for (let i = 0; i < 3; i++) {
      await startedCount(i + 1);
      started[i]!.finish();
    }
    await Promise.all(queued);
  });

  it('round-robins between agents who each keep runs waiting', () => {
    const slots = createFairSlots({ ...DEFAULT_FAIR_SLOTS, slots: 1, perIdentity: 3 });
    const order: string[] = [];
    const tickets = ['a', 'a', 'a', 'b', 'b', 'c'].map((id) => {
      const ticket = slots.enter(id);
      void ticket.turn.then((free) => {
        order.push(id);
        queueMicrotask(free);
      });
      return ticket;
    });
    return Promise.all(tickets.map((t) => t.turn)).then(() => expect(order).toEqual(['a', 'b', 'c', 'a', 'b', 'a']));
  });
});
