import { z } from 'zod';
import { defineAction, defineTool } from '../../src/registry/types.js';
import { Tick, Uid } from '../../src/registry/common-schemas.js';
import { ProposalId, VoteTally } from './compute.schemas.js';

const EnvelopeId = z.string().min(1).max(128).describe('Envelope (tally token) id');

export const communityOperatorVoteTool = defineTool({
  name: 'core_community_operator_vote',
  toolset: 'compute',
  title: 'Vote on community operators',
  description:
    'Voting side of community operators. `stake` backs a proposal yes or no with your envelopes, locking them for the vote (weight = staked value); `resolve`, callable by anyone once the window has closed, tallies the vote and returns every staked envelope whatever the outcome.',
  actions: [
    defineAction({
      id: 'communityOperator.stake',
      action: 'stake',
      method: 'POST',
      path: '/api/community-operators/{id}/stake',
      auth: 'bearer',
      area: 'economy',
      summary: 'Stakes your envelopes yes or no on an open proposal. Locks them until resolve and returns the running tally.',
      input: z.object({
        id: ProposalId,
        side: z.enum(['yes', 'no']),
        envelope_ids: z.array(EnvelopeId).min(1).max(100).describe('Envelopes you own to lock as stake'),
      }),
      output: z.object({
        ok: z.literal(true),
        proposal_id: ProposalId,
        side: z.enum(['yes', 'no']),
        locked: z.array(z.object({ envelope_id: EnvelopeId, value: z.number().min(0) })).describe('Envelopes now locked_for_vote'),
        weight: z.number().min(0).describe('Value added to the side by this stake'),
        tally: VoteTally,
        closes_at_tick: Tick,
      }),
      handler: async (input, { services, caller }) => services.communityOperators.stake(input.id, input.side, input.envelope_ids, caller),
    }),
    defineAction({
      id: 'communityOperator.resolve',
      action: 'resolve',
      method: 'POST',
      path: '/api/community-operators/{id}/resolve',
      auth: 'bearer',
      area: 'economy',
      summary: "Tallies a proposal's vote after its window closed; sets accepted or rejected and returns every staked envelope to its owner.",
      input: z.object({ id: ProposalId }),
      output: z.object({
        ok: z.literal(true),
        proposal_id: ProposalId,
        outcome: z.enum(['accepted', 'rejected']).describe('rejected also when the quorum of stakers or the minimum stake was not reached'),
        quorum_met: z.boolean(),
        tally: VoteTally,
        returned: z.array(z.object({ envelope_id: EnvelopeId, owner_uid: Uid, side: z.enum(['yes', 'no']) })).describe('Every staked envelope, now unlocked'),
        resolved_at_tick: Tick,
      }),
      idempotent: true,
      handler: async (input, { services, caller }) => services.communityOperators.resolve(input.id, caller),
    }),
  ],
});
