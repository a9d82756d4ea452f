import { describe, expect, it } from 'vitest';
import type { ProposalRecord, ProposalStatus } from '../../src/domain/community/community-policy.js';
import { createProposalRepository } from '../../src/domain/community/proposal-repository.js';
import type { OperatorDef } from '../../src/domain/operators/operator.types.js';
import { DuplicateKeyError } from '../../src/storage/port.js';
import { freshStore, type MakeStore } from './store-harness.js';

const proposal = (id: string, status: ProposalStatus): ProposalRecord => ({
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
  });
}
