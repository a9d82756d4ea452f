import { afterEach, describe, expect, it } from 'vitest';
import { harness, OWNER, T0, type Harness } from './harness.js';

const open: Harness[] = [];
afterEach(async () => {
  while (open.length > 0) await open.pop()!.close();
});
async function setup(opts?: Parameters<typeof harness>[0]) {
  const h = await harness(opts);
  open.push(h);
  return h;
}

async function post(h: Harness, slug: string, type: string, payload: Record<string, unknown> = {}) {
  const { machine } = await h.core.services.machines.readable(slug, OWNER);
  await h.core.services.chain.recordEvent(machine, OWNER, { type, payload });
  await h.core.services.contracts.settled();
}

const provenance = {
  name: 'provenance',
  states: { origin: { initial: true }, in_transit: {}, delivered: { terminal: true } },
  transitions: [
    {
      from: 'origin',
      to: 'in_transit',
      operator: 'KO42',
      trigger: { kind: 'on_event', event: 'handoff' },
      post_actions: [{ type: 'emit', event: 'custody_changed' }],
    },
    {
      from: 'in_transit',
      to: 'in_transit',
      operator: 'KO42',
      trigger: { kind: 'on_event', event: 'handoff' },
      post_actions: [{ type: 'emit', event: 'custody_changed' }],
    },
    {
      from: 'in_transit',
      to: 'delivered',
      operator: 'KO42',
      trigger: { kind: 'on_events', events: ['delivered', 'received'] },
      post_actions: [{ type: 'emit', event: 'chain_closed' }],
    },
  ],
};

describe('on_event and on_events', () => {
  it('moves on events posted to the machine and emits events into the feed', async () => {
    const h = await setup();
    h.clock.set((T0 + 1) * 777);
    const id = await h.deploy(provenance);
    await post(h, 'm1', 'handoff', { to: 'carrier' });
    await post(h, 'm1', 'handoff', { to: 'depot' });
    await post(h, 'm1', 'received');
    const rows = await h.rows(id);
    expect(rows.map((r) => [r.from_state, r.to_state, r.triggered_by])).toEqual([
      ['origin', 'in_transit', 'event'],
      ['in_transit', 'in_transit', 'event'],
      ['in_transit', 'delivered', 'event'],
    ]);
    expect(rows[0]!.input).toEqual({ to: 'carrier' });
    const feed = await h.core.services.contracts.audit.events('m1', { limit: 10 });
    expect(feed.events.map((e) => e.name)).toEqual(['custody_changed', 'custody_changed', 'chain_closed']);
  });

  it('ignores events while the contract is paused', async () => {
    const h = await setup();
    const id = await h.deploy(provenance);
    await h.core.services.contracts.control.pause('m1', id, OWNER);
    await post(h, 'm1', 'handoff');
    expect(await h.rows(id)).toEqual([]);
  });

  it('delivers events emitted by one contract to another contract on the same machine', async () => {
    const h = await setup();
    await h.deploy({
      name: 'heartbeat',
      states: { on: { initial: true } },
      transitions: [{ from: 'on', to: 'on', operator: 'KO42', trigger: { kind: 'every', every_ticks: 1 }, post_actions: [{ type: 'emit', event: 'beat' }] }],
    });
    const counter = await h.deploy({
      name: 'counter',
      states: { waiting: { initial: true }, seen: {} },
      transitions: [{ from: 'waiting', to: 'seen', operator: 'KO42', trigger: { kind: 'on_event', event: 'beat' } }],
    });
    await h.walkTo(T0 + 1);
    expect((await h.rows(counter)).map((r) => r.to_state)).toEqual(['seen']);
  });

  it('lets a contract subscribe to another machine it can read, and refuses one it cannot', async () => {
    const h = await setup({ machines: [{ slug: 'src', is_public: true }, { slug: 'dst' }] });
    await h.deploy(
      {
        name: 'source',
        states: { s: { initial: true } },
        transitions: [
          { from: 's', to: 's', operator: 'KO42', trigger: { kind: 'every', every_ticks: 1 }, post_actions: [{ type: 'emit', event: 'tick_seen' }] },
        ],
      },
      'src',
    );
    const listener = await h.deploy(
      {
        name: 'listener',
        states: { idle: { initial: true } },
        transitions: [{ from: 'idle', to: 'idle', operator: 'KO42', trigger: { kind: 'on_event', event: 'tick_seen', machine: 'src' } }],
      },
      'dst',
    );
    await h.walkTo(T0 + 2);
    expect((await h.rows(listener, 'dst')).length).toBe(2);
    const stranger = { uid: 'ustranger0000001', credential: 'user-key' as const };
    await h.core.services.machines.create({ slug: 'mine' }, stranger);
    await h.core.services.machines.create({ slug: 'secret' }, OWNER);
    await expect(
      h.core.services.contracts.crud.create('mine', stranger, {
        definition: {
          name: 'spy',
          states: { a: { initial: true } },
          transitions: [{ from: 'a', to: 'a', operator: 'KO42', trigger: { kind: 'on_event', event: 'x', machine: 'secret' } }],
        },
      }),
    ).rejects.toMatchObject({ code: 'VALIDATION_FAILED', details: { path: 'transitions[0].trigger.machine' } });
  });

  it('records one failed row when no candidate passes its condition', async () => {
    const h = await setup();
    const id = await h.deploy({
      name: 'gate',
      states: { closed: { initial: true }, open: {} },
      transitions: [{ from: 'closed', to: 'open', operator: 'KO42', condition: 'amount > 10', trigger: { kind: 'on_event', event: 'pay' } }],
    });
    await post(h, 'm1', 'pay', { amount: 3 });
    await post(h, 'm1', 'pay', { amount: 30 });
    expect((await h.rows(id)).map((r) => [r.success, r.error, r.to_state])).toEqual([
      [false, 'condition_failed', 'closed'],
      [true, null, 'open'],
    ]);
  });

  it('stops a loop of contracts emitting to each other', async () => {
    const h = await setup();
    const ping = (listen: string, say: string) => ({
      name: `${say}er`,
      states: { s: { initial: true } },
      transitions: [{ from: 's', to: 's', operator: 'KO42', trigger: { kind: 'on_event', event: listen }, post_actions: [{ type: 'emit', event: say }] }],
    });
    const a = await h.deploy(ping('pong', 'ping'));
    await h.deploy(ping('ping', 'pong'));
    await post(h, 'm1', 'pong');
    const n = (await h.rows(a)).length;
    expect(n).toBeGreaterThan(1);
    expect(n).toBeLessThan(10);
  });
});

describe('on_aggregate', () => {
  const approval = {
    name: 'approval',
    states: { pending: { initial: true }, approved: { terminal: true } },
    transitions: [
      {
        from: 'pending',
        to: 'approved',
        operator: 'KO42',
        trigger: { kind: 'on_aggregate', event: 'approve', within_ticks: 100, aggregate: { fn: 'count' }, op: '>=', threshold: 3 },
        post_actions: [{ type: 'emit', event: 'approval_granted' }],
      },
    ],
  };

  it('fires when the count of an event in the window reaches the threshold', async () => {
    const h = await setup();
    const id = await h.deploy(approval);
    await post(h, 'm1', 'approve');
    await post(h, 'm1', 'approve');
    expect(await h.rows(id)).toEqual([]);
    await post(h, 'm1', 'approve');
    const rows = await h.rows(id);
    expect(rows.map((r) => [r.to_state, r.input.aggregate])).toEqual([['approved', 3]]);
  });

  it('forgets events that left the window', async () => {
    const h = await setup();
    const id = await h.deploy(approval);
    h.clock.set((T0 + 1) * 777);
    await post(h, 'm1', 'approve');
    await post(h, 'm1', 'approve');
    h.clock.set((T0 + 150) * 777);
    await post(h, 'm1', 'approve');
    expect(await h.rows(id)).toEqual([]);
  });

  it('averages a payload field with hysteresis between two states', async () => {
    const h = await setup();
    const agg = (op: string, threshold: number) => ({
      kind: 'on_aggregate',
      event: 'reading',
      within_ticks: 60,
      aggregate: { fn: 'avg', field: 'value' },
      op,
      threshold,
    });
    const id = await h.deploy({
      name: 'threshold_monitor',
      states: { normal: { initial: true }, breached: {} },
      transitions: [
        { from: 'normal', to: 'breached', operator: 'KO42', trigger: agg('>', 100) },
        { from: 'breached', to: 'normal', operator: 'KO42', trigger: agg('<=', 90) },
      ],
    });
    for (const value of [80, 150, 150]) await post(h, 'm1', 'reading', { value });
    expect((await h.rows(id)).map((r) => r.to_state)).toEqual(['breached']);
    for (const value of [10, 10, 10]) await post(h, 'm1', 'reading', { value });
    expect((await h.rows(id)).map((r) => r.to_state)).toEqual(['breached', 'normal']);
  });
});
