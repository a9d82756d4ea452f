import { describe, expect, it } from 'vitest';
import { createChainService } from '../../src/domain/chain/chain.service.js';
import type { MachineRecord } from '../../src/domain/chain/machine.js';
import { createMachineRepository } from '../../src/domain/chain/machine-repository.js';
import { createMachinesService } from '../../src/domain/chain/machines.service.js';
import { ANONYMOUS, type Caller } from '../../src/domain/identity/caller.js';
import type { IdentityService } from '../../src/domain/identity/identity.service.js';
import type { QuotasService } from '../../src/domain/quotas/quotas.service.js';
import { createFakeClock } from '../../src/lib/clock.js';
import { createEventBus } from '../../src/domain/events.js';
import { countingReads } from './reads-counter.js';
import { freshStore, type MakeStore } from './store-harness.js';
import { storageOf } from '../helpers/repositories.js';

/** Alice owns most of the machines (867 private ones); every sixth machine stored is carol's public one, every ninth bob's private one. */
const STORED = 1_200;
const LIMIT = 50;

const at = (n: number) => new Date(Date.UTC(2026, 0, 1) + n * 1000).toISOString();

function machine(n: number): MachineRecord {
  const owner = n % 9 === 4 ? 'bob' : n % 6 === 5 ? 'carol' : 'alice';
  return {
    slug: `o${String(n).padStart(4, '0')}`,
    display_name: null,
    purpose: null,
    is_public: owner === 'carol',
    status: 'active',
    owner_uid: owner,
    genesis_tick: n,
    genesis_hash: 'h',
    created_at: at(n),
    updated_at: at(n),
  };
}

/**
 * A caller with many machines of its own lists a page by reading about a page of
 * machine records (the owner index answers "does it own a private one" with one record), not every
 * machine it owns. Counted reads, not time.
 */
export function runOwnedListContract(name: string, makeStore: MakeStore): void {
  describe(`a caller's own machines: ${name}`, () => {
    it('reads about a page of machines for a page, deep or first, with every own and public machine shown once and no other private one', async () => {
      const { store } = await freshStore(makeStore);
      const records = createMachineRepository(store);
      const all = Array.from({ length: STORED }, (_, n) => machine(n));
      for (const m of all) await records.insert(m);
      const owned = all.filter((m) => m.owner_uid === 'alice').length;
      expect(owned).toBeGreaterThan(800);

      const { store: counted, reads } = countingReads(store);
      const clock = createFakeClock();
      const chain = createChainService({ ...storageOf(counted), clock, bus: createEventBus() });
      const machines = createMachinesService({ ...storageOf(counted), clock, chain, identity: {} as IdentityService, quotas: {} as QuotasService });
      const alice: Caller = { uid: 'alice', credential: 'user-key' };

      const expected = all.filter((m) => m.owner_uid !== 'bob').map((m) => m.slug);
      const shown: string[] = [];
      let cursor: string | undefined;
      let worst = 0;
      do {
        reads.found.machines = 0;
        const page = await machines.list(alice, { limit: LIMIT, ...(cursor === undefined ? {} : { cursor }) });
        worst = Math.max(worst, reads.found.machines);
        shown.push(...page.machines.map((m) => m.slug));
        cursor = page.next_cursor ?? undefined;
      } while (cursor !== undefined);
      expect(shown).toEqual(expected);
      // The owner probe (1), then store pages of 51 and, for the few of bob's skipped on the way, one of 102.
      expect(worst).toBeLessThanOrEqual(1 + 3 * (LIMIT + 1));
      expect(worst).toBeLessThan(owned / 5);
      expect(reads.lists).toEqual({});
    });

    it('shows a machine-bound key only its machine and the public ones, and bob none of those alice owns', async () => {
      const { store } = await freshStore(makeStore);
      const records = createMachineRepository(store);
      for (let n = 0; n < 60; n++) await records.insert(machine(n));
      const clock = createFakeClock();
      const chain = createChainService({ ...storageOf(store), clock, bus: createEventBus() });
      const machines = createMachinesService({ ...storageOf(store), clock, chain, identity: {} as IdentityService, quotas: {} as QuotasService });
      const slugs = async (caller: Caller) => (await machines.list(caller, { limit: 100 })).machines.map((m) => m.slug);
      const publicOnes = Array.from({ length: 60 }, (_, n) => machine(n))
        .filter((m) => m.is_public)
        .map((m) => m.slug);
      const bound = await slugs({ uid: 'alice', credential: 'machine-key', machine: 'o0001' });
      expect(bound).toEqual(['o0001', ...publicOnes].sort());
      const bob = await slugs({ uid: 'bob', credential: 'user-key' });
      expect(bob).toEqual(
        Array.from({ length: 60 }, (_, n) => machine(n))
          .filter((m) => m.owner_uid !== 'alice')
          .map((m) => m.slug),
      );
      expect(await slugs(ANONYMOUS)).toEqual(publicOnes);
    });
  });
}
