import { describe, expect, it } from 'vitest';
import { createDirectoryService } from '../../src/domain/agents/directory.service.js';
import { createStateRepository } from '../../src/domain/agents/state-repository.js';
import { createUserRepository } from '../../src/domain/identity/user-repository.js';
import type { SeatRecord } from '../../src/domain/economy/contribute-policy.js';
import { createSeatRepository } from '../../src/domain/economy/seat-repository.js';
import { countingReads } from './reads-counter.js';
import { freshStore, type MakeStore } from './store-harness.js';
import { storageOf } from '../helpers/repositories.js';

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
      const directory = createDirectoryService({ ...storageOf(counted) });

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

    it('counts the census from the active seats and kept totals, recounting only when the totals are missing or a writer died mid-change', async () => {
      const { store } = await freshStore(makeStore);
      const seat = (n: number, heartbeat: number): SeatRecord => ({
        seat_id: `s${n}`,
        uid: `u${n}`,
        mode: n % 2 === 0 ? 'verifier' : 'relay',
        bonded_token_ids: [`e${n}a`, `e${n}b`],
        bonded_value: n,
        created_tick: heartbeat,
        last_heartbeat_tick: heartbeat,
      });
      // Seats stored before the totals existed: the first census counts them once.
      for (let n = 1; n <= 60; n++) await store.docs.insert('contribute-seats', `s${n}`, seat(n, 100));
      const { store: counted, reads } = countingReads(store);
      const seats = createSeatRepository(counted);
      expect(await seats.totals()).toEqual({ seats: 60, bonded_envelopes: 120, bonded_value: 1830 });
      expect(reads.lists).toEqual({ 'contribute-seats': 1 });

      for (const n of [61, 62, 63]) await seats.insert(seat(n, 500));
      await seats.update('s61', (s) => s && { ...s, bonded_token_ids: [...s.bonded_token_ids, 'e61c'], bonded_value: s.bonded_value + 1 });
      await seats.update('s62', (s) => s && { ...s, last_heartbeat_tick: 501 });
      expect(await seats.delete('s1')).toBe(true);
      expect(await seats.delete('s1')).toBe(false);
      reads.found['contribute-seats'] = 0;
      const active = await seats.heartbeatSince(400);
      expect(active.map((s) => s.seat_id)).toEqual(['s62', 's63', 's61']);
      expect(reads.found['contribute-seats']).toBeLessThan(30);
      expect(await seats.totals()).toEqual({ seats: 62, bonded_envelopes: 125, bonded_value: 1829 + 3 * 62 + 1 });
      expect(reads.lists).toEqual({ 'contribute-seats': 1 });

      // A process that died between marking the totals and storing the new sums: the next census recounts.
      const stored = await store.docs.get<Record<string, unknown>>('contribute-seat-totals', 'all');
      await store.docs.put('contribute-seat-totals', 'all', { ...stored, bonded_value: -1, pending: true });
      expect(await seats.totals()).toEqual({ seats: 62, bonded_envelopes: 125, bonded_value: 1829 + 3 * 62 + 1 });
      expect(reads.lists).toEqual({ 'contribute-seats': 2 });
    });
  });
}
