import { z } from 'zod';
import { defineAction, defineTool } from '../../src/registry/types.js';
import { Tick } from '../../src/registry/common-schemas.js';
import { OperatorId, Proposal, ProposalId, TestCase } from './compute.schemas.js';
import type { ProposalIo } from '../../src/domain/community/proposal-verify.js';
import { wireShape } from '../../src/registry/wire-shape.js';

const Io = wireShape<ProposalIo>()(
  z.object({
    name: z
      .string()
      .min(1)
      .max(64)
      .regex(/^[a-z][a-z0-9_]*$/, 'a variable name is snake_case')
      .describe('Variable name, snake_case'),
    unit: z.string().max(64).describe('SI unit, empty for dimensionless'),
    description: z.string().max(500).optional(),
  }),
);

export const communityOperatorProposeTool = defineTool({
  name: 'core_community_operator_propose',
  toolset: 'compute',
  title: 'Propose community operators',
  description:
    'Authoring side of community operators. `propose` submits a new operator with a cited source and test cases (evaluated and kept as its verification record); `open_vote` lets the author open the staking window; `promote` adds an accepted proposal to the registry and needs a human session and `confirm: true`.',
  actions: [
    defineAction({
      id: 'communityOperator.propose',
      action: 'propose',
      method: 'POST',
      path: '/api/community-operators/propose',
      auth: 'bearer',
      area: 'economy',
      summary: 'Proposes a new operator; its test cases are evaluated and the proposal is returned in staging with its verification record.',
      input: z.object({
        operator_id: OperatorId.describe('Requested id, uppercase and new'),
        name: z.string().min(1).max(200),
        category: z
          .string()
          .min(1)
          .max(64)
          .regex(/^[a-z][a-z0-9_]*$/, 'a category is snake_case')
          .describe('Category key, snake_case'),
        formula: z.string().min(1).max(2000).describe('Human-readable formula'),
        expression: z.string().min(1).max(2000).describe('Machine-evaluable expression over the input names'),
        description: z.string().min(1).max(4000),
        inputs: z.array(Io).min(1).max(32),
        output: Io,
        source: z
          .object({
            citation: z.string().min(1).max(1000).describe('Reference for the formula (book, paper, standard)'),
            url: z.url().max(2000).optional(),
          })
          .describe('Required cited source'),
        test_cases: z.array(TestCase).min(3).max(50).describe('Reference cases with known results'),
      }),
      output: z.object({ ok: z.literal(true), proposal: Proposal }),
      handler: async (input, { services, caller }) => services.communityOperators.propose(input, caller),
    }),
    defineAction({
      id: 'communityOperator.openVote',
      action: 'open_vote',
      method: 'POST',
      path: '/api/community-operators/{id}/open-vote',
      auth: 'bearer',
      area: 'economy',
      summary: 'Opens the vote on your own proposal; returns it with the tick at which voting closes.',
      input: z.object({
        id: ProposalId,
        window_ticks: z.number().int().min(1).max(10_000_000).optional().describe('Length of the vote window in ticks; default the service policy'),
      }),
      output: z.object({ ok: z.literal(true), proposal: Proposal, closes_at_tick: Tick }),
      handler: async (input, { services, caller }) => services.communityOperators.openVote(input.id, input.window_ticks, caller),
    }),
    defineAction({
      id: 'communityOperator.promote',
      action: 'promote',
      method: 'POST',
      path: '/api/community-operators/{id}/promote',
      auth: 'bearer',
      area: 'economy',
      summary: 'Adds an accepted proposal to the operator registry; needs a human session and confirm true.',
      input: z.object({
        id: ProposalId,
        confirm: z.literal(true).describe('Must be true: promotion is permanent'),
      }),
      output: z.object({
        ok: z.literal(true),
        proposal: Proposal,
        operator_id: OperatorId.describe('Id of the operator now in the registry'),
        registry_version: z.string().describe('Registry digest after the promotion'),
      }),
      destructive: true,
      tags: ['human-session'],
      handler: async (input, { services, caller }) => services.communityOperators.promote(input.id, caller),
    }),
  ],
});
