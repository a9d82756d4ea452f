import { describe, expect, it } from 'vitest';
import { verifyChain } from '../../src/domain/chain/hash-chain.js';
import type { SeatRecord } from '../../src/domain/economy/contribute-policy.js';
import { createAvatarRepository } from '../../src/domain/economy/avatar-repository.js';
import { createCreditRepository } from '../../src/domain/economy/credit-repository.js';
import { emptyAccount } from '../../src/domain/economy/credits-account.js';
import { createNodeAuditRepository, nodeAuditSeed } from '../../src/domain/economy/node-audit-repository.js';
import { createPeerReplayRepository } from '../../src/domain/economy/peer-replay-repository.js';
import { createSeatRepository } from '../../src/domain/economy/seat-repository.js';
import { createFakeClock } from '../../src/lib/clock.js';
import { DuplicateKeyError } from '../../src/storage/port.js';
import { freshStore, type MakeStore } from './store-harness.js';

const seat = (id: string, uid: string): SeatRecord => ({
  seat_id: id,
  uid,
  mode: 'verifier',
  bonded_token_ids: ['e1'],
  bonded_value: 10,
  created_tick: 1,
  last_heartbeat_tick: 1,
});

/** The seat, credit, peer-replay, avatar and node-audit repositories on every adapter. */
export function runEconomyAccountRepositoryContracts(name: string, makeStore: MakeStore): void {
  describe(`economy account repositories: ${name}`, () => {
    it('finds a uid’s seats by index and forgets a released one', async () => {
      const { store } = await freshStore(makeStore);
      const seats = createSeatRepository(store);
      await seats.insert(seat('s1', 'u1'));
      await seats.insert(seat('s2', 'u2'));
      await expect(seats.insert(seat('s1', 'u1'))).rejects.toBeInstanceOf(DuplicateKeyError);
      expect((await seats.byUid('u1')).map((s) => s.seat_id)).toEqual(['s1']);
      await seats.update('s1', (s) => s && { ...s, mode: 'relay' });
      expect((await seats.byId('s1'))?.mode).toBe('relay');
      expect(await seats.delete('s1')).toBe(true);
      expect(await seats.byUid('u1')).toEqual([]);
      expect(await seats.totals()).toEqual({ seats: 1, bonded_envelopes: 1, bonded_value: 10 });
    });

    it('keeps one credit account per uid and refuses a peer call used twice until it leaves the window', async () => {
      const { store } = await freshStore(makeStore);
      const accounts = createCreditRepository(store);
      await accounts.update('u1', (a) => ({ ...(a ?? emptyAccount('u1')), credits_balance: 5 }));
      expect((await accounts.byUid('u1'))?.credits_balance).toBe(5);
      expect(await accounts.byUid('u2')).toBeUndefined();
      const replays = createPeerReplayRepository(store);
      await replays.insert('call', 10);
      await replays.insert('later', 50);
      await expect(replays.insert('call', 11)).rejects.toBeInstanceOf(DuplicateKeyError);
      await replays.pruneBefore(20);
      await replays.insert('call', 60);
      await expect(replays.insert('later', 61)).rejects.toBeInstanceOf(DuplicateKeyError);
    });

    it('stores avatar rows per machine and chains each area’s node audit log from its seed', async () => {
      const { store } = await freshStore(makeStore);
      const avatars = createAvatarRepository(store);
      const row = await avatars.append('m', { type: 'avatar', tick: 1, alg: 'A256GCM', iv: 'i', ct: 'c', tag: 't' });
      expect(await avatars.get('m', row.seq)).toEqual(row);
      expect(await avatars.get('n', row.seq)).toBeUndefined();
      const audit = createNodeAuditRepository(store, createFakeClock());
      await audit.append('credits', { type: 'credits.claimed', actor_uid: 'u', subject: 'u', detail: { n: 1 } });
      await audit.append('credits', { type: 'credits.claimed', actor_uid: 'u', subject: 'u', detail: { n: 2 } });
      await audit.append('contribute', { type: 'contribute.bonded', actor_uid: 'u', subject: 's', detail: {} });
      const rows = await audit.rows('credits');
      expect(rows.map((r) => r.id)).toEqual(['node/credits:0', 'node/credits:1']);
      expect(verifyChain(rows, nodeAuditSeed('credits')).valid).toBe(true);
      expect(await audit.rows('community-operators')).toEqual([]);
    });
  });
}
