import { describe, expect, it } from 'vitest';
import type { ProposalRecord, ProposalStatus } from '../../src/domain/community/community-policy.js';
import { createProposalRepository } from '../../src/domain/community/proposal-repository.js';
import type { OperatorDef } from '../../src/domain/operators/operator.types.js';
import { keysetPage } from '../../src/lib/keyset-page.js';
import { DuplicateKeyError } from '../../src/storage/port.js';
import { countingReads } from './reads-counter.js';
import { freshStore, type MakeStore } from './store-harness.js';

/** A proposal record with every field filled; tests override what they look at. */
export const proposal = (id: string, status: ProposalStatus): ProposalRecord => ({
  id,
  operator_id: `OP_${id}`,
  name: id,
  category: 'c',
  formula: 'f',
  expression: 'x',
  description: 'd',
  inputs: [],
  output: { name: 'y', unit: '1' },
  source: { citation: 'c', url: null },
  verification: { passed: true, max_relative_error: 0, cases: [] },
  author_uid: 'u',
  status,
  vote: null,
  stakes: [],
  resolution: null,
  created_at: 't',
});

/** The community proposal repository (proposals and promoted operators) on every adapter. */
export function runProposalRepositoryContract(name: string, makeStore: MakeStore): void {
  describe(`proposal repository: ${name}`, () => {
    it('lists proposals of one status or all of them, and promotes an operator once', async () => {
      const { store } = await freshStore(makeStore);
      const proposals = createProposalRepository(store);
      await proposals.insert(proposal('p1', 'staging'));
      await proposals.insert(proposal('p2', 'voting'));
      await proposals.insert(proposal('p3', 'staging'));
      await expect(proposals.insert(proposal('p1', 'voting'))).rejects.toBeInstanceOf(DuplicateKeyError);
      await proposals.update('p3', (p) => p && { ...p, status: 'voting' });
      expect(await proposals.update('px', (p) => p)).toBeUndefined();
      expect((await proposals.list('voting')).map((p) => p.id)).toEqual(['p2', 'p3']);
      expect((await proposals.list()).map((p) => p.id)).toEqual(['p1', 'p2', 'p3']);
      expect((await proposals.byId('p1'))?.status).toBe('staging');
      const def = { id: 'OP_p2', name: 'p2' } as OperatorDef;
      await proposals.insertPromoted(def);
      await expect(proposals.insertPromoted(def)).rejects.toBeInstanceOf(DuplicateKeyError);
      expect(await proposals.promoted('OP_p2')).toEqual(def);
      expect(await proposals.allPromoted()).toEqual([def]);
    });

    it('pages proposals newest first by created_at then id, reading about a page, and adds the order field to older proposals once', async () => {
      const { store } = await freshStore(makeStore);
      const at = (n: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString();
      // Stored by an earlier version (no created_ms), out of created_at order.
      await store.docs.insert('community-proposals', 'old2', { ...proposal('old2', 'staging'), created_at: at(2) });
      await store.docs.insert('community-proposals', 'old1', { ...proposal('old1', 'voting'), created_at: at(1) });
      const { store: counted, reads } = countingReads(store);
      const proposals = createProposalRepository(counted);
      for (let n = 0; n < 40; n++)
        await proposals.insert({ ...proposal(`p${String(n).padStart(2, '0')}`, n % 2 === 0 ? 'staging' : 'voting'), created_at: at(10 + n) });
      // Two created in the same millisecond, inserted low id first: the higher id comes first.
      await proposals.insert({ ...proposal('tie-a', 'staging'), created_at: at(5) });
      await proposals.insert({ ...proposal('tie-b', 'staging'), created_at: at(5) });
      /** The first `limit` proposals `keep` accepts, and the ids of the rest, page by page (as the listing pages them). */
      const newest = async (where: { status?: ProposalStatus }, limit: number, keep: (p: ProposalRecord) => boolean) =>
        (
          await keysetPage({
            kind: 'test',
            cursor: undefined,
            limit,
            fetch: (after, size) => proposals.newestAfter(where, after, size),
            keep: async (found) => found.map((p) => (keep(p) ? p : undefined)),
          })
        ).items;
      const all = async () => (await newest({}, 100, () => true)).map((p) => p.id);
      expect(await all()).toEqual([...Array.from({ length: 40 }, (_, n) => `p${String(39 - n).padStart(2, '0')}`), 'tie-b', 'tie-a', 'old2', 'old1']);
      expect(reads.lists).toEqual({ 'community-proposals': 1 });
      reads.found['community-proposals'] = 0;
      expect((await newest({}, 3, () => true)).map((p) => p.id)).toEqual(['p39', 'p38', 'p37']);
      expect(reads.found['community-proposals']).toBeLessThan(10);
      expect((await newest({ status: 'staging' }, 3, (p) => p.id.startsWith('t') || p.id.startsWith('o'))).map((p) => p.id)).toEqual([
        'tie-b',
        'tie-a',
        'old2',
      ]);
      expect(await proposals.byId('old1')).toEqual({ ...proposal('old1', 'voting'), created_at: at(1) });
      expect(reads.lists).toEqual({ 'community-proposals': 1 });
    });
  });
}
