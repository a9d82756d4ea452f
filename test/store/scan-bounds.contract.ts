import { describe, expect, it } from 'vitest';
import { createDirectoryService } from '../../src/domain/agents/directory.service.js';
import { createStateRepository } from '../../src/domain/agents/state-repository.js';
import { createUserRepository } from '../../src/domain/identity/user-repository.js';
import { countingReads } from './reads-counter.js';
import { freshStore, type MakeStore } from './store-harness.js';

/** Request paths that used to read whole collections now read about a page: checked on every adapter. */
export function runScanBoundsContract(name: string, makeStore: MakeStore): void {
  describe(`bounded request reads: ${name}`, () => {
    it('lists the agent directory from a page of users, and stops a search once its page is full', async () => {
      const { store } = await freshStore(makeStore);
      const users = createUserRepository(store);
      const uids = Array.from({ length: 60 }, (_, n) => `u${String(n).padStart(2, '0')}`);
      for (const [n, uid] of uids.entries()) await users.insert({ uid, created_at: '2026-01-01T00:00:00.000Z', created_tick: n });
      for (const uid of ['u10', 'u11', 'u50']) {
        await createStateRepository(store).updateProfile(uid, () => ({ uid, display_name: `Needle ${uid}`, updated_at: '2026-01-01T00:00:00.000Z' }));
      }
      const { store: counted, reads } = countingReads(store);
      const directory = createDirectoryService({ store: counted });

      const first = await directory.list({ limit: 2 });
      expect(first.agents.map((a) => a.uid)).toEqual(['u00', 'u01']);
      expect(reads.found['users']).toBeLessThanOrEqual(3);
      const second = await directory.list({ limit: 2, cursor: first.next_cursor! });
      expect(second.agents.map((a) => a.uid)).toEqual(['u02', 'u03']);

      reads.found['users'] = 0;
      const search = await directory.list({ q: 'needle', limit: 1 });
      expect(search.agents).toEqual([expect.objectContaining({ uid: 'u10', display_name: 'Needle u10' })]);
      expect(search.next_cursor).not.toBeNull();
      // Two matches (the page and one more) are at u10 and u11: the scan stops there, short of the 60 users.
      expect(reads.found['users']).toBeLessThan(30);
      const rest = await directory.list({ q: 'needle', limit: 5, cursor: search.next_cursor! });
      expect(rest).toEqual({ agents: [expect.objectContaining({ uid: 'u11' }), expect.objectContaining({ uid: 'u50' })], next_cursor: null });
      expect(reads.lists).toEqual({});
    });
  });
}
