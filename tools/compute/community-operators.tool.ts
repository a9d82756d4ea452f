import { z } from 'zod';
import { defineAction, defineTool } from '../../src/registry/types.js';
import { Cursor, Limit } from '../../src/registry/common-schemas.js';
import { Proposal, ProposalId, ProposalStatus } from './compute.schemas.js';

export const communityOperatorsTool = defineTool({
  name: 'core_community_operators',
  toolset: 'compute',
  title: 'Community operators',
  description:
    'Reads community operator proposals: new operators proposed by users with a cited source and test cases, voted on by staking envelopes. Use `list` to browse proposals by status and `get` for one proposal with its verification record and vote tally.',
  actions: [
    defineAction({
      id: 'communityOperator.list',
      action: 'list',
      method: 'GET',
      path: '/api/community-operators',
      auth: 'public',
      area: 'economy',
      summary: 'Lists community operator proposals; newest first, optionally filtered by status or text.',
      input: z.object({
        status: ProposalStatus.optional(),
        q: z.string().max(200).optional().describe('Search text. Matched in any case against operator id, name and category'),
        limit: Limit.default(50),
        cursor: Cursor.optional(),
      }),
      output: z.object({
        ok: z.literal(true),
        proposals: z.array(Proposal),
        next_cursor: z.string().nullable(),
      }),
      idempotent: true,
      handler: async (input, { services }) => services.communityOperators.list(input),
    }),
    defineAction({
      id: 'communityOperator.get',
      action: 'get',
      method: 'GET',
      path: '/api/community-operators/{id}',
      auth: 'public',
      area: 'economy',
      summary: 'Reads one community operator proposal: formula, cited source, verification record, status and vote tally.',
      input: z.object({ id: ProposalId }),
      output: z.object({ ok: z.literal(true), proposal: Proposal }),
      idempotent: true,
      handler: async (input, { services }) => services.communityOperators.get(input.id),
    }),
  ],
});
