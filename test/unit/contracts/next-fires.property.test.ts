import { afterEach, describe, expect, it } from 'vitest';
import { harness, OWNER, T0, type Harness } from './harness.js';

const open: Harness[] = [];
afterEach(async () => {
  while (open.length > 0) await open.pop()!.close();
});

/** Small deterministic PRNG (mulberry32), so a failing case can be replayed from its seed. */
function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, int: (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1)), pick: <T>(xs: T[]) => xs[Math.floor(next() * xs.length)]! };
}

/** A random definition of 1-3 states whose transitions are all scheduled (recurring, one_shot or cron). */
function randomDefinition(seed: number) {
  const r = rng(seed);
  const states = ['a', 'b', 'c'].slice(0, r.int(1, 3));
  const transitions = [];
  for (const from of states) {
    for (let k = r.int(1, 2); k > 0; k--) {
      const kind = r.pick(['every', 'every', 'one_shot', 'cron']);
      const trigger =
        kind === 'every'
          ? { kind, every_ticks: r.int(1, 9) }
          : kind === 'one_shot'
            ? { kind, at_tick: T0 + r.int(-5, 40) }
            : { kind, cron: r.pick(['* * * * *', '*/2 * * * *']) };
      const to = r.pick(states);
      const transition: Record<string, unknown> = { from, to, operator: 'KO42', trigger };
      const roll = r.next();
      if (roll < 0.2) transition.condition = 'go == true';
      else if (roll < 0.3) transition.condition = 'stop == true';
      if (r.next() < 0.15) transition.post_actions = [{ type: 'set_state', state: r.pick(states) }];
      transitions.push(transition);
    }
  }
  return {
    name: `random_${seed}`,
    states: Object.fromEntries(states.map((s, i) => [s, i === 0 ? { initial: true } : {}])),
    transitions,
    defaults: { go: true, stop: false },
  };
}

describe('next-fires', () => {
  it('predicts exactly the fires the scheduler then makes, for random scheduled contracts', async () => {
    // 30 live contracts on one machine: more than the default contract quota, which is not what this tests.
    const h = await harness({ env: { CORE_QUOTAS: 'off' } });
    open.push(h);
    const { crud, planning, core } = h.core.services.contracts;
    let compared = 0;
    for (let seed = 1; seed <= 30; seed++) {
      const { contract } = await crud.create('m1', OWNER, { definition: randomDefinition(seed) });
      const record = await core.find('m1', contract.id);
      const { fires } = await planning.nextFires(record, 6);
      if (fires.length === 0) continue;
      const last = fires[fires.length - 1]!.tick_number;
      expect(
        fires.map((f) => f.tick_number),
        `seed ${seed}: predictions in order`,
      ).toEqual([...fires.map((f) => f.tick_number)].sort((x, y) => x - y));
      const deadline = Math.max(last, Math.floor(h.clock.now() / 777));
      const from = Math.floor(h.clock.now() / 777);
      for (let t = from; t <= deadline; t++) await h.runAt(t);
      const rows = (await h.rows(contract.id)).slice(0, fires.length);
      const made = rows.map((r) => ({ tick: r.due_tick, from: r.from_state, to: record.definition.transitions[r.transition_index!]!.to }));
      expect(made, `seed ${seed}`).toEqual(fires.map((f) => ({ tick: f.tick_number, from: f.from, to: f.to })));
      compared += fires.length;
      await h.core.services.contracts.control.freeze('m1', contract.id, OWNER);
    }
    expect(compared).toBeGreaterThan(100);
  });

  it('returns an empty list and a note for an event-triggered contract', async () => {
    const h = await harness();
    open.push(h);
    const id = await h.deploy({
      name: 'ev',
      states: { s: { initial: true } },
      transitions: [{ from: 's', to: 's', operator: 'KO42', trigger: { kind: 'on_event', event: 'x' } }],
    });
    const record = await h.core.services.contracts.core.find('m1', id);
    const { fires, note } = await h.core.services.contracts.planning.nextFires(record, 5);
    expect(fires).toEqual([]);
    expect(note).toMatch(/events/);
  });
});
