import { afterEach, describe, expect, it } from 'vitest';
import { createChainService } from '../../../src/domain/chain/chain.service.js';
import { genesisSeed, type ChainRow } from '../../../src/domain/chain/hash-chain.js';
import type { MachineRecord } from '../../../src/domain/chain/machine.js';
import { createRecentRing } from '../../../src/domain/chain/recent-ring.js';
import { createMachineRepository } from '../../../src/domain/chain/machine-repository.js';
import { createFakeClock } from '../../../src/lib/clock.js';
import { createEventBus } from '../../../src/domain/events.js';
import { makeLowdbHarness } from '../../store/lowdb-harness.js';
import { storageOf } from '../../helpers/repositories.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

const machine = (slug: string): MachineRecord => ({
  slug,
  display_name: null,
  purpose: null,
  is_public: true,
  status: 'active',
  owner_uid: 'u',
  genesis_tick: 1,
  genesis_hash: genesisSeed(slug, 1),
  created_at: new Date(0).toISOString(),
  updated_at: new Date(0).toISOString(),
});

describe('recent ring', () => {
  it('rebuilds from the newest rows of public machines, merges live rows without duplicates, newest first', async () => {
    const harness = await makeLowdbHarness({ fsync: false });
    cleanups.push(harness.cleanup);
    const clock = createFakeClock();
    const chain = createChainService({ ...storageOf(harness.store), clock, bus: createEventBus() });
    const a = machine('ring-a');
    const b = machine('ring-b');
    const written: ChainRow[] = [];
    for (let i = 0; i < 3; i++) {
      written.push(await chain.append(a, { type: 'x', actor_uid: null, payload_digest: 'a'.repeat(64) }));
      clock.advance(777);
      written.push(await chain.append(b, { type: 'y', actor_uid: null, payload_digest: 'b'.repeat(64) }));
      clock.advance(777);
    }
    const ring = createRecentRing({
      ...storageOf(harness.store),
      activeFirst: () => createMachineRepository(harness.store).activeSince(0),
      isPublic: async (slug) => slug === a.slug || slug === b.slug,
      capacity: 4,
    });
    ring.push('ring-b', written[5]!);
    const first = await ring.newestFirst();
    expect(first.map((e) => `${e.slug}:${e.row.seq}`)).toEqual(['ring-b:2', 'ring-a:2', 'ring-b:1', 'ring-a:1']);
    clock.advance(777);
    const fresh = await chain.append(a, { type: 'z', actor_uid: null, payload_digest: 'c'.repeat(64) });
    ring.push('ring-a', fresh);
    ring.push('ring-a', fresh);
    const next = await ring.newestFirst();
    expect(next.map((e) => `${e.slug}:${e.row.seq}`)).toEqual(['ring-a:3', 'ring-b:2', 'ring-a:2', 'ring-b:1']);
  });
});
