import { describe, expect, it } from 'vitest';
import { createMachineRepository } from '../../src/domain/chain/machine-repository.js';
import { createContractRepository } from '../../src/domain/contracts/contract-repository.js';
import { isEventTrigger, triggerEvents } from '../../src/domain/contracts/triggers.js';
import { createFakeClock, tickStartMs, TICK_MS } from '../../src/lib/clock.js';
import { createMachine, mintKey } from '../helpers/server.js';
import { useServer } from '../helpers/use-server.js';

const T0 = 2_287_100_000;
const clock = createFakeClock(tickStartMs(T0));

const server = useServer({}, clock);

const nowTick = () => Math.floor(clock.now() / TICK_MS);
const run = Date.now().toString(36);

/** A machine of its own owner, public or not. */
async function machine(name: string, isPublic: boolean) {
  const owner = await mintKey(server);
  const slug = `sub-${name}-${run}`;
  await createMachine(server, owner.key, { slug, isPublic });
  const base = `/api/chain/${slug}/contracts`;
  return {
    slug,
    owner,
    async create(definition: unknown): Promise<string> {
      const res = await server.call('POST', base, { key: owner.key, body: { definition } });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.contract.id as string;
    },
    async edit(id: string, definition: unknown) {
      const res = await server.call('PATCH', `${base}/${id}`, { key: owner.key, body: { definition } });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    },
    async post(id: string, verb: string, body?: unknown) {
      const res = await server.call('POST', `${base}/${id}/${verb}`, { key: owner.key, body });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    },
  };
}

/** A contract emitting `beat` and `pulse` on every tick. */
const emitter = {
  name: 'emitter',
  states: { on: { initial: true } },
  transitions: [
    {
      from: 'on',
      to: 'on',
      operator: 'KO42',
      trigger: { kind: 'every', every_ticks: 1 },
      post_actions: [
        { type: 'emit', event: 'beat' },
        { type: 'emit', event: 'pulse' },
      ],
    },
  ],
};

/** A contract listening to each `[machine, trigger]` (no machine: its own). */
const listener = (...triggers: Array<[string | undefined, Record<string, unknown>]>) => ({
  name: 'listener',
  states: { s: { initial: true } },
  transitions: triggers.map(([source, trigger]) => ({
    from: 's',
    to: 's',
    operator: 'KO42',
    trigger: { ...trigger, ...(source === undefined ? {} : { machine: source }) },
  })),
});
const beat = { kind: 'on_event', event: 'beat' };

/**
 * The page as it was computed before the listener index: every contract read, in the collection's
 * order, the live ones on other public machines whose triggers on the machine name an emitted event.
 */
async function subscribersBefore(id: string) {
  const contracts = createContractRepository(server.core.store);
  const machines = createMachineRepository(server.core.store);
  const record = (await contracts.get(id))!;
  const emits = new Set(record.definition.transitions.flatMap((t) => (t.post_actions ?? []).flatMap((a) => (a.type === 'emit' && a.event ? [a.event] : []))));
  const live = await contracts.list((c) => c.slug !== record.slug && c.status !== 'killed' && c.status !== 'frozen');
  const slugs = await machines.publicAmong(live.map((c) => c.slug));
  return live
    .filter((c) => slugs.has(c.slug))
    .flatMap((c) => {
      const events = new Set<string>();
      for (const t of c.definition.transitions) {
        if (!isEventTrigger(t.trigger) || t.trigger.machine !== record.slug) continue;
        for (const name of triggerEvents(t.trigger)) if (emits.has(name)) events.add(name);
      }
      return events.size > 0 ? [{ slug: c.slug, contract_id: c.id, events: [...events].sort(), since_tick: c.created_tick }] : [];
    });
}

describe('GET /api/contracts/public/{id}/subscribers', () => {
  it('lists the live listeners on machines public now, in creation order, through kills, edits, rollbacks and visibility changes', async () => {
    const src = await machine('src', true);
    const elsewhere = await machine('elsewhere', true);
    const [a, b, c, d] = await Promise.all([machine('a', true), machine('b', true), machine('c', true), machine('d', true)]);
    const hidden = await machine('hidden', false);
    const goesDark = await machine('goes-dark', true);
    const id = await src.create(emitter);
    const t0 = nowTick();

    // Several in one tick (a tie in creation time), the rest a tick apart.
    const late = await a.create(listener([elsewhere.slug, beat]));
    const plain = await b.create(listener([src.slug, beat]));
    const privateOne = await hidden.create(listener([src.slug, beat]));
    const killed = await c.create(listener([src.slug, beat]));
    clock.set(tickStartMs(t0 + 1));
    const moved = await d.create(listener([src.slug, beat], [undefined, { kind: 'on_event', event: 'own' }]));
    const both = await a.create(listener([src.slug, { kind: 'on_events', events: ['pulse', 'beat', 'other'] }], [elsewhere.slug, beat]));
    const notEmitted = await b.create(listener([src.slug, { kind: 'on_event', event: 'never' }]));
    const dark = await goesDark.create(listener([src.slug, beat]));
    const own = await src.create(listener([src.slug, beat]));
    clock.set(tickStartMs(t0 + 2));
    const paused = await c.create(
      listener([src.slug, { kind: 'on_aggregate', event: 'beat', within_ticks: 5, aggregate: { fn: 'count' }, op: '>=', threshold: 2 }]),
    );
    const frozen = await d.create(listener([src.slug, beat]));
    const rolledBack = await a.create(listener([src.slug, beat]));

    await server.call('POST', `/api/core/agent/kill/${killed}`, { key: c.owner.key, body: { slug: c.slug, reason: 'done' } });
    await d.post(frozen, 'freeze');
    await c.post(paused, 'pause');
    await d.edit(moved, listener([elsewhere.slug, beat]));
    // Starts listening after every other was created: it still comes in at its creation place.
    await a.edit(late, listener([elsewhere.slug, beat], [src.slug, { kind: 'on_event', event: 'pulse' }]));
    await a.edit(rolledBack, listener([elsewhere.slug, beat]));
    await a.post(rolledBack, 'rollback', { to_version: 1 });
    expect((await server.call('PATCH', `/api/chain/${goesDark.slug}/settings`, { key: goesDark.owner.key, body: { is_public: false } })).status).toBe(200);

    const res = await server.call('GET', `/api/contracts/public/${id}/subscribers`);
    expect(res.status).toBe(200);
    expect(res.body.subscribers).toEqual([
      { slug: a.slug, contract_id: late, events: ['pulse'], since_tick: t0 },
      { slug: b.slug, contract_id: plain, events: ['beat'], since_tick: t0 },
      { slug: a.slug, contract_id: both, events: ['beat', 'pulse'], since_tick: t0 + 1 },
      { slug: c.slug, contract_id: paused, events: ['beat'], since_tick: t0 + 2 },
      { slug: a.slug, contract_id: rolledBack, events: ['beat'], since_tick: t0 + 2 },
    ]);
    expect(res.body.subscribers).toEqual(await subscribersBefore(id));
    for (const gone of [privateOne, killed, moved, notEmitted, dark, own, frozen]) {
      expect(res.body.subscribers.map((s: { contract_id: string }) => s.contract_id)).not.toContain(gone);
    }

    // Visibility is read at request time: public again, its listener is back in its place.
    await server.call('PATCH', `/api/chain/${goesDark.slug}/settings`, { key: goesDark.owner.key, body: { is_public: true } });
    const again = (await server.call('GET', `/api/contracts/public/${id}/subscribers`)).body.subscribers;
    expect(again.map((s: { contract_id: string }) => s.contract_id)).toEqual([late, plain, both, dark, paused, rolledBack]);
    expect(again).toEqual(await subscribersBefore(id));
    // The elsewhere machine emits nothing: no subscribers, whoever listens.
    const quiet = await elsewhere.create(listener([undefined, beat]));
    expect((await server.call('GET', `/api/contracts/public/${quiet}/subscribers`)).body.subscribers).toEqual([]);
  });
});
