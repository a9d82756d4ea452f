import { describe, expect, it } from 'vitest';
import { createMachineRepository } from '../../src/domain/chain/machine-repository.js';
import { createCheckpointRepository } from '../../src/domain/chain/checkpoint-repository.js';
import type { MachineRecord } from '../../src/domain/chain/machine.js';
import { freshStore, type MakeStore } from './store-harness.js';

const machine = (slug: string, fields: Partial<MachineRecord> = {}): MachineRecord => ({
  slug,
  display_name: null,
  purpose: null,
  is_public: true,
  status: 'active',
  owner_uid: 'u1',
  genesis_tick: 0,
  genesis_hash: 'h',
  created_at: new Date(0).toISOString(),
  updated_at: new Date(0).toISOString(),
  ...fields,
});

const slugsOf = (list: Array<{ slug: string }>): string[] => list.map((m) => m.slug);

/** The machine and checkpoint repositories' queries, on every adapter. */
export function runMachineRepositoryContract(name: string, makeStore: MakeStore): void {
  describe(`machine repository: ${name}`, () => {
    it('lists the newest public machines by genesis tick, then creation time, then insertion order', async () => {
      const { store } = await freshStore(makeStore);
      const machines = createMachineRepository(store);
      const at = (ms: number) => new Date(ms).toISOString();
      await machines.insert(machine('old', { genesis_tick: 1 }));
      await machines.insert(machine('tie-a', { genesis_tick: 5, created_at: at(10) }));
      await machines.insert(machine('tie-b', { genesis_tick: 5, created_at: at(10) }));
      await machines.insert(machine('later', { genesis_tick: 5, created_at: at(20) }));
      await machines.insert(machine('hidden', { genesis_tick: 9, is_public: false }));
      await machines.insert(machine('mid', { genesis_tick: 3 }));
      expect(slugsOf(await machines.newestPublic(3))).toEqual(['later', 'tie-a', 'tie-b']);
      expect(slugsOf(await machines.newestPublic(10))).toEqual(['later', 'tie-a', 'tie-b', 'mid', 'old']);
      const first = await machines.after(true, undefined, 1);
      const page = await machines.after(true, first.next, 2);
      expect({ slugs: slugsOf(page.items), total: await machines.countPublic() }).toEqual({ slugs: ['tie-a', 'tie-b'], total: 5 });
      expect(slugsOf((await machines.after(false, page.positions![0], 2)).items)).toEqual(['tie-b', 'later']);
      await machines.update('hidden', (m) => m && { ...m, is_public: true });
      expect(slugsOf(await machines.newestPublic(1))).toEqual(['hidden']);
    });

    it('answers owned machines, grants and the public machines of a user from their indexes', async () => {
      const { store } = await freshStore(makeStore);
      const machines = createMachineRepository(store);
      await machines.insert(machine('mine-pub', { owner_uid: 'alice' }));
      await machines.insert(machine('mine-priv', { owner_uid: 'alice', is_public: false, status: 'paused' }));
      await machines.insert(machine('theirs', { owner_uid: 'bob' }));
      await machines.insert(machine('theirs-priv', { owner_uid: 'bob', is_public: false }));
      const grant = (slug: string) => ({ slug, uid: 'alice', role: 'admin' as const, granted_by: 'bob', granted_at: new Date(0).toISOString() });
      await machines.updateGrant('theirs', 'alice', () => grant('theirs'));
      await machines.updateGrant('theirs-priv', 'alice', () => grant('theirs-priv'));
      expect(slugsOf(await machines.ownedBy('alice'))).toEqual(['mine-pub', 'mine-priv']);
      expect(slugsOf(await machines.ownedBy('alice', 'active'))).toEqual(['mine-pub']);
      expect(await machines.countOwnedBy('alice')).toBe(2);
      expect(await machines.publicSlugsOf('alice')).toEqual(['mine-pub', 'theirs']);
      expect(slugsOf(await machines.grantsOf('alice'))).toEqual(['theirs', 'theirs-priv']);
      expect(await machines.publicAmong(['theirs', 'theirs-priv', 'missing', 'theirs'])).toEqual(new Set(['theirs']));
      expect(await machines.deleteGrant('theirs', 'alice')).toBe(true);
      expect(await machines.grantOf('theirs', 'alice')).toBeUndefined();
      expect(await machines.publicSlugsOf('alice')).toEqual(['mine-pub']);
    });

    it('keeps each machine at its newest tick and lists the ones active since a tick, latest first', async () => {
      const { store } = await freshStore(makeStore);
      const machines = createMachineRepository(store);
      await machines.touched('a', 5);
      await machines.touched('b', 7);
      await machines.touched('c', 2);
      await machines.touched('a', 9);
      await machines.touched('b', 3);
      const since = async (tick: number) => {
        const out: string[] = [];
        for await (const activity of machines.activeSince(tick)) out.push(`${activity.slug}@${activity.last_tick}`);
        return out;
      };
      expect(await since(3)).toEqual(['a@9', 'b@7']);
      expect(await since(0)).toEqual(['a@9', 'b@7', 'c@2']);
      expect(await since(10)).toEqual([]);
    });

    it('returns the latest checkpoints among those kept, ties by slug', async () => {
      const { store } = await freshStore(makeStore);
      const checkpoints = createCheckpointRepository(store);
      const signed = (slug: string, signed_tick: number) => ({ slug, seq: 0, tick: 0, head_hash: 'h', signed_tick, signature: 's' });
      for (const [slug, tick] of [
        ['b', 4],
        ['a', 4],
        ['c', 9],
        ['d', 1],
        ['e', 4],
      ] as const)
        await checkpoints.record(signed(slug, tick), 'k');
      const keepAllBut = (dropped: string) => async (found: Array<{ slug: string }>) => found.map((c) => c.slug !== dropped);
      expect(slugsOf(await checkpoints.newest(3, keepAllBut('c')))).toEqual(['a', 'b', 'e']);
      expect(slugsOf(await checkpoints.newest(2, keepAllBut('none')))).toEqual(['c', 'a']);
      expect(await checkpoints.history('a', 5)).toEqual([signed('a', 4)]);
    });
  });
}
