import { describe, expect, it } from 'vitest';
import { createEnvelopeLockRepository, type EnvelopeLock } from '../../src/domain/economy/envelope-lock-repository.js';
import { createTallyRepository } from '../../src/domain/economy/tally-repository.js';
import type { EnvelopeRow, TokenRecord } from '../../src/domain/economy/tally-token.js';
import { DuplicateKeyError, type RowInput } from '../../src/storage/port.js';
import { freshStore, type MakeStore } from './store-harness.js';

const token = (slug: string, handle: string): TokenRecord => ({
  machine_slug: slug,
  name: 'T',
  symbol: 'T',
  max_supply: 100,
  mint_rate_per_tick: 1,
  genesis_tick: 0,
  token_hash: 'h',
  handle,
  created_by: 'u',
  created_at: 't',
  rate_updated_tick: null,
  accrual: { tick: 0, allowance: 0 },
  tokens_burned: 0,
  avatar: null,
});
const envelope = (slug: string, seq: number, minted: number): RowInput<EnvelopeRow> => ({
  type: 'envelope',
  tick: seq,
  token_id: `e${seq}`,
  token_hash: 'h',
  machine_slug: slug,
  value: 1,
  source: 'compute',
  result_digest: 'd',
  issued_to: 'u',
  signature: 's',
  minted_total: minted,
  created_at: 't',
});
const lock = (id: string, slug: string, ref: string): EnvelopeLock => ({
  token_id: id,
  machine_slug: slug,
  owner_uid: 'u',
  value: 1,
  kind: 'vote',
  ref,
  tick: 1,
});

/** The tally repository (tokens, handles, envelope logs) and the envelope-lock repository on every adapter. */
export function runTallyRepositoryContract(name: string, makeStore: MakeStore): void {
  describe(`tally repository: ${name}`, () => {
    it('creates a machine’s token once, resolves its handle, and appends envelopes on the head', async () => {
      const { store } = await freshStore(makeStore);
      const tally = createTallyRepository(store);
      await tally.insertToken(token('m', 'aaaa'));
      await expect(tally.insertToken(token('m', 'bbbb'))).rejects.toBeInstanceOf(DuplicateKeyError);
      expect(await tally.slugOfHandle('aaaa')).toBe('m');
      expect(await tally.slugOfHandle('zzzz')).toBeUndefined();
      await tally.updateToken('m', (t) => t && { ...t, tokens_burned: 3 });
      expect((await tally.token('m'))?.tokens_burned).toBe(3);
      for (let i = 0; i < 3; i++) await tally.appendEnvelope('m', (head, seq) => envelope('m', seq, (head?.minted_total ?? 0) + 1));
      expect(await tally.envelopeCount('m')).toBe(3);
      expect(await tally.slugsWithEnvelopes()).toEqual(['m']);
      expect((await tally.lastEnvelope('m'))?.minted_total).toBe(3);
      expect((await tally.envelope('m', 1))?.token_id).toBe('e1');
      expect((await tally.envelopes('m', { reverse: true, limit: 2 })).map((e) => e.seq)).toEqual([2, 1]);
    });

    it('holds one lock per envelope, finds a machine’s locks and frees a lock only for its holder', async () => {
      const { store } = await freshStore(makeStore);
      const locks = createEnvelopeLockRepository(store);
      await locks.insert(lock('e1', 'm', 'p1'));
      await locks.insert(lock('e2', 'n', 'p1'));
      await locks.insert(lock('e3', 'm', 'p2'));
      await expect(locks.insert(lock('e1', 'm', 'p9'))).rejects.toBeInstanceOf(DuplicateKeyError);
      expect((await locks.bySlug('m')).map((l) => l.token_id)).toEqual(['e1', 'e3']);
      expect(await locks.deleteIf('e1', (held) => held.ref === 'p2')).toBe(false);
      expect(await locks.deleteIf('e1', (held) => held.ref === 'p1')).toBe(true);
      expect(await locks.byTokenId('e1')).toBeUndefined();
      expect(await locks.delete('e3')).toBe(true);
      expect(await locks.bySlug('m')).toEqual([]);
    });
  });
}
