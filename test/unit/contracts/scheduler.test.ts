import { afterEach, describe, expect, it } from 'vitest';
import { TICK_MS } from '../../../src/lib/clock.js';
import { harness, OWNER, selfLoop, T0, type Harness } from './harness.js';

const open: Harness[] = [];
afterEach(async () => {
  while (open.length > 0) await open.pop()!.close();
});
async function setup(opts?: Parameters<typeof harness>[0]) {
  const h = await harness(opts);
  open.push(h);
  return h;
}

describe('recurring triggers', () => {
  it('fires an every-N contract once per due tick, with the due tick recorded', async () => {
    const h = await setup();
    const id = await h.deploy(selfLoop({ kind: 'every', every_ticks: 3 }));
    await h.walkTo(T0 + 10);
    const rows = await h.rows(id);
    expect(rows.map((r) => r.due_tick)).toEqual([T0 + 3, T0 + 6, T0 + 9]);
    expect(rows.every((r) => r.success && r.triggered_by === 'trigger' && r.skipped === 0)).toBe(true);
    expect(rows.map((r) => r.tick_number)).toEqual([T0 + 3, T0 + 6, T0 + 9]);
  });

  it('never fires a due tick twice when a pass runs again within the same tick', async () => {
    const h = await setup();
    const id = await h.deploy(selfLoop({ kind: 'recurring', every_ticks: 1 }));
    await h.runAt(T0 + 1, 10);
    await h.runAt(T0 + 1, 500);
    await h.runAt(T0 + 1, 776);
    expect((await h.rows(id)).length).toBe(1);
  });

  it('fires within one tick of its due time when the pass runs late in the tick', async () => {
    const h = await setup();
    const id = await h.deploy(selfLoop({ kind: 'every', every_ticks: 2 }));
    await h.runAt(T0 + 2, TICK_MS - 1);
    const [row] = await h.rows(id);
    expect(row!.tick_number - row!.due_tick!).toBeLessThanOrEqual(1);
  });
});

describe('one_shot triggers', () => {
  it('fires once at its tick and never again', async () => {
    const h = await setup();
    const id = await h.deploy({
      name: 'deadline',
      states: { held: { initial: true }, expired: { terminal: true } },
      transitions: [
        { from: 'held', to: 'expired', operator: 'KO42', trigger: { kind: 'one_shot', at_tick: T0 + 5 }, post_actions: [{ type: 'emit', event: 'expired' }] },
      ],
    });
    await h.walkTo(T0 + 4);
    expect(await h.rows(id)).toEqual([]);
    await h.walkTo(T0 + 9);
    const rows = await h.rows(id);
    expect(rows.map((r) => [r.due_tick, r.from_state, r.to_state])).toEqual([[T0 + 5, 'held', 'expired']]);
  });

  it('fires an at_unix one_shot at the first tick starting at or after that second', async () => {
    const h = await setup();
    const atMs = (T0 + 10) * TICK_MS + 300;
    const id = await h.deploy(selfLoop({ kind: 'one_shot', at_unix: Math.ceil(atMs / 1000) }));
    const dueTick = Math.ceil((Math.ceil(atMs / 1000) * 1000) / TICK_MS);
    await h.walkTo(dueTick - 1);
    expect(await h.rows(id)).toEqual([]);
    await h.walkTo(dueTick + 2);
    expect((await h.rows(id)).map((r) => r.due_tick)).toEqual([dueTick]);
  });

  it('fires an overdue one_shot once, on arrival, on the first pass after creation', async () => {
    const h = await setup();
    const id = await h.deploy(selfLoop({ kind: 'one_shot', at_tick: T0 - 50 }));
    await h.walkTo(T0 + 3);
    expect((await h.rows(id)).map((r) => r.due_tick)).toEqual([T0]);
  });
});

describe('cron triggers', () => {
  it('fires on each UTC minute boundary of a "* * * * *" schedule, at the first tick after it', async () => {
    const h = await setup();
    const id = await h.deploy(selfLoop({ kind: 'cron', cron: '* * * * *' }));
    const start = h.clock.now();
    const end = Math.floor((start + 3 * 60_000) / TICK_MS);
    await h.walkTo(end);
    const rows = await h.rows(id);
    const minutes = [1, 2, 3].map((k) => Math.floor(start / 60_000) * 60_000 + k * 60_000).filter((ms) => Math.ceil(ms / TICK_MS) <= end);
    expect(rows.map((r) => r.due_tick)).toEqual(minutes.map((ms) => Math.ceil(ms / TICK_MS)));
  });
});

describe('downtime, restarts and clock steps', () => {
  it('fires missed recurring fires once after a restart and records how many were skipped', async () => {
    const h = await setup();
    const id = await h.deploy(selfLoop({ kind: 'every', every_ticks: 2 }));
    await h.walkTo(T0 + 4);
    await h.restart();
    await h.runAt(T0 + 21);
    const rows = await h.rows(id);
    expect(rows.map((r) => [r.due_tick, r.skipped])).toEqual([
      [T0 + 2, 0],
      [T0 + 4, 0],
      [T0 + 20, 7],
    ]);
    await h.walkTo(T0 + 24);
    expect((await h.rows(id)).slice(3).map((r) => r.due_tick)).toEqual([T0 + 22, T0 + 24]);
  });

  it('collapses missed cron fires into one after downtime', async () => {
    const h = await setup();
    const id = await h.deploy(selfLoop({ kind: 'cron', cron: '*/5 * * * *' }));
    await h.restart();
    await h.runAt(Math.floor((h.clock.now() + 60 * 60_000) / TICK_MS));
    const rows = await h.rows(id);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.skipped).toBeGreaterThanOrEqual(10);
  });

  it('does not fire again when the clock steps back', async () => {
    const h = await setup();
    const id = await h.deploy(selfLoop({ kind: 'every', every_ticks: 1 }));
    await h.walkTo(T0 + 5);
    expect(await h.rows(id)).toHaveLength(5);
    for (let t = T0 + 1; t <= T0 + 5; t++) await h.runAt(t, 100);
    expect(await h.rows(id)).toHaveLength(5);
    await h.runAt(T0 + 6);
    expect((await h.rows(id)).map((r) => r.due_tick).slice(-1)).toEqual([T0 + 6]);
  });

  it('collapses the due ticks a forward clock jump skips into one fire that counts them, then fires on schedule', async () => {
    const h = await setup();
    const id = await h.deploy(selfLoop({ kind: 'every', every_ticks: 1 }));
    await h.walkTo(T0 + 3);
    // The wall clock jumps 100 ticks (about 78 s) forward while the process runs: no restart.
    await h.runAt(T0 + 103);
    const rows = await h.rows(id);
    expect(rows.map((r) => [r.due_tick, r.skipped])).toEqual([
      [T0 + 1, 0],
      [T0 + 2, 0],
      [T0 + 3, 0],
      [T0 + 103, 99],
    ]);
    await h.walkTo(T0 + 105);
    expect((await h.rows(id)).slice(4).map((r) => r.due_tick)).toEqual([T0 + 104, T0 + 105]);
  });

  it('does not fire twice across a restart that lands inside the same tick', async () => {
    const h = await setup();
    const id = await h.deploy(selfLoop({ kind: 'every', every_ticks: 1 }));
    await h.runAt(T0 + 1, 100);
    await h.restart();
    await h.runAt(T0 + 1, 400);
    expect(await h.rows(id)).toHaveLength(1);
  });
});

describe('controls', () => {
  it('pause stops fires and keeps state; resume restarts the schedule from now without replaying', async () => {
    const h = await setup();
    const id = await h.deploy(selfLoop({ kind: 'every', every_ticks: 2 }));
    const control = h.core.services.contracts.control;
    await h.walkTo(T0 + 2);
    const paused = await control.pause('m1', id, OWNER);
    expect(paused).toMatchObject({ status: 'paused', next_fire: null });
    await h.walkTo(T0 + 10);
    expect(await h.rows(id)).toHaveLength(1);
    const resumed = await control.resume('m1', id, OWNER);
    expect(resumed).toMatchObject({ status: 'active', next_fire: T0 + 12 });
    await h.walkTo(T0 + 12);
    expect((await h.rows(id)).map((r) => [r.due_tick, r.skipped])).toEqual([
      [T0 + 2, 0],
      [T0 + 12, 0],
    ]);
  });

  it('skip-next skips exactly one fire', async () => {
    const h = await setup();
    const id = await h.deploy(selfLoop({ kind: 'every', every_ticks: 2 }));
    const skipped = await h.core.services.contracts.control.skipNext('m1', id, OWNER);
    expect(skipped).toMatchObject({ skipped_tick: T0 + 2, next_fire: T0 + 4 });
    await h.walkTo(T0 + 6);
    expect((await h.rows(id)).map((r) => r.due_tick)).toEqual([T0 + 4, T0 + 6]);
  });

  it('fire-now fires at once and leaves the recurring schedule as it was', async () => {
    const h = await setup();
    const id = await h.deploy(selfLoop({ kind: 'every', every_ticks: 5 }));
    h.clock.set((T0 + 1) * TICK_MS);
    const fired = await h.core.services.contracts.control.fireNow('m1', id, OWNER, {});
    expect(fired).toMatchObject({ fired: true, new_state: 'on', next_fire: T0 + 5 });
    expect(fired.transition).toMatchObject({ triggered_by: 'fire_now', due_tick: null });
    await h.walkTo(T0 + 5);
    expect((await h.rows(id)).map((r) => r.triggered_by)).toEqual(['fire_now', 'trigger']);
  });

  it('freeze keeps the contract and its history and clears next_fire for good', async () => {
    const h = await setup();
    const id = await h.deploy(selfLoop({ kind: 'every', every_ticks: 1 }));
    await h.walkTo(T0 + 2);
    expect(await h.core.services.contracts.control.freeze('m1', id, OWNER)).toMatchObject({ status: 'frozen', next_fire: null });
    await h.walkTo(T0 + 6);
    expect(await h.rows(id)).toHaveLength(2);
    await expect(h.core.services.contracts.control.resume('m1', id, OWNER)).rejects.toMatchObject({ code: 'CONFLICT' });
    expect((await h.core.services.contracts.crud.get('m1', id)).contract).toMatchObject({ status: 'frozen', fire_count: 2 });
  });

  it('kill stops a contract at once, records the reason on the chain, and survives a restart', async () => {
    const h = await setup();
    const id = await h.deploy(selfLoop({ kind: 'every', every_ticks: 1 }));
    await h.walkTo(T0 + 1);
    const killed = await h.core.services.contracts.control.kill('m1', id, OWNER, 'runaway spend');
    expect(killed).toMatchObject({ status: 'killed', killed_tick: T0 + 1 });
    await h.restart();
    await h.walkTo(T0 + 5);
    expect(await h.rows(id)).toHaveLength(1);
    const machine = await h.core.services.machines.readable('m1', OWNER);
    const { rows } = await h.core.services.chain.activity(machine.machine, { type: 'contract.killed' });
    expect(rows).toHaveLength(1);
    const { payload } = await h.core.services.chain.payloadOf(machine.machine, rows[0]!);
    expect(payload).toMatchObject({ contract_id: id, reason: 'runaway spend' });
  });
});
