import { afterEach, describe, expect, it } from 'vitest';
import { createChainLogRepository } from '../../../src/domain/chain/chain-log-repository.js';
import { createChainService } from '../../../src/domain/chain/chain.service.js';
import { genesisSeed, seal } from '../../../src/domain/chain/hash-chain.js';
import type { MachineRecord } from '../../../src/domain/chain/machine.js';
import { createMachineRepository } from '../../../src/domain/chain/machine-repository.js';
import type { MachinesService } from '../../../src/domain/chain/machines.service.js';
import { createPublicFeedService } from '../../../src/domain/chain/public-feed.service.js';
import { createFakeClock, TICK_MS } from '../../../src/lib/clock.js';
import { createEventBus } from '../../../src/domain/events.js';
import { makeLowdbHarness } from '../../store/lowdb-harness.js';
import { storageOf } from '../../helpers/repositories.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

const machine = (slug: string, is_public = true): MachineRecord => ({
  slug,
  display_name: slug,
  purpose: null,
  is_public,
  status: 'active',
  owner_uid: 'u',
  genesis_tick: 0,
  genesis_hash: genesisSeed(slug, 0),
  created_at: new Date(0).toISOString(),
  updated_at: new Date(0).toISOString(),
});

// `active` reads no machine view: the machines service is never called.
const noViews = {} as MachinesService;

describe('machine activity index', () => {
  it('lists as active only public machines with rows in the window, counting their rows', async () => {
    const harness = await makeLowdbHarness({ fsync: false });
    cleanups.push(harness.cleanup);
    const clock = createFakeClock();
    const chain = createChainService({ ...storageOf(harness.store), clock, bus: createEventBus() });
    const machines = createMachineRepository(harness.store);
    const [quiet, busy, hidden] = [machine('quiet'), machine('busy'), machine('hidden', false)];
    for (const m of [quiet, busy, hidden]) await machines.insert(m);
    const append = (m: MachineRecord) => chain.append(m, { type: 'x', actor_uid: null, payload_digest: 'a'.repeat(64) });
    await append(quiet);
    clock.advance(100 * TICK_MS);
    for (let i = 0; i < 3; i++) await append(busy);
    await append(hidden);
    const feed = createPublicFeedService({ ...storageOf(harness.store), clock, bus: createEventBus(), machines: noViews });
    const { machines: active } = await feed.active(10, 10);
    expect(active.map((m) => [m.slug, m.transition_count])).toEqual([['busy', 3]]);
  });

  it('enters machines written before the index existed once, so active still sees them', async () => {
    const harness = await makeLowdbHarness({ fsync: false });
    cleanups.push(harness.cleanup);
    const clock = createFakeClock();
    clock.advance(50 * TICK_MS);
    const old = machine('old');
    await createMachineRepository(harness.store).insert(old);
    // A row appended the way earlier versions did: straight to the log, no activity record.
    await createChainLogRepository(harness.store).append(old.slug, (_head, seq) =>
      seal({
        id: `old:${seq}`,
        tick: clock.tick(),
        type: 'x',
        transition_id: 't',
        actor_uid: null,
        payload_digest: 'a'.repeat(64),
        prev_hash: genesisSeed(old.slug, 0),
        created_at: new Date(clock.now()).toISOString(),
        seq,
      }),
    );
    expect(await createMachineRepository(harness.store).activityBackfilled()).toBe(false);
    const feed = createPublicFeedService({ ...storageOf(harness.store), clock, bus: createEventBus(), machines: noViews });
    expect((await feed.active(10, 10)).machines.map((m) => m.slug)).toEqual(['old']);
    expect(await createMachineRepository(harness.store).activityBackfilled()).toBe(true);
  });

  it('writes one activity record per machine per tick, and again in the next tick', async () => {
    const harness = await makeLowdbHarness({ fsync: false });
    cleanups.push(harness.cleanup);
    const clock = createFakeClock();
    const writes: string[] = [];
    // Counts activity writes through the store the service is given.
    const docs = new Proxy(harness.store.docs, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver) as unknown;
        if (prop !== 'update' || typeof value !== 'function') return typeof value === 'function' ? value.bind(target) : value;
        return (collection: string, id: string, fn: never) => {
          if (collection === 'machine-activity') writes.push(`${id}@${clock.tick()}`);
          return (value as (...args: unknown[]) => unknown).call(target, collection, id, fn);
        };
      },
    });
    const store = new Proxy(harness.store, { get: (target, prop, receiver) => (prop === 'docs' ? docs : Reflect.get(target, prop, receiver)) });
    const chain = createChainService({ ...storageOf(store), clock, bus: createEventBus() });
    const [a, b] = [machine('a'), machine('b')];
    for (const m of [a, b]) await createMachineRepository(harness.store).insert(m);
    const append = (m: MachineRecord) => chain.append(m, { type: 'x', actor_uid: null, payload_digest: 'a'.repeat(64) });
    await append(a);
    await append(a);
    await append(b);
    clock.advance(TICK_MS);
    await append(a);
    await append(a);
    const t = clock.tick();
    expect(writes).toEqual([`a@${t - 1}`, `b@${t - 1}`, `a@${t}`]);
  });
});
