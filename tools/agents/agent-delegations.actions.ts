import { z } from 'zod';
import { defineAction } from '../../src/registry/types.js';
import { IsoDate, Slug, Uid } from '../../src/registry/common-schemas.js';
import { Delegation, DelegationAccess } from './agents.schemas.js';

/**
 * An agent's delegations: the only way anyone but the agent reaches its store. They are actions of
 * `core_agent_state` and, like every agent-store operation, answer only to the agent's own user key or
 * session (`agentStore: 'self'`): no delegation can be used to make another.
 */
export const delegationActions = [
  defineAction({
    id: 'agentDelegation.create',
    lastingAccess: 'Delegating your agent store to a machine owner',
    action: 'delegate',
    method: 'POST',
    path: '/api/agent/{uid}/delegations',
    auth: 'bearer',
    agentStore: 'self',
    area: 'agents',
    summary:
      "Lets a machine's owner use your agent data for it. The owner may read, or read and change, your files, state, plans, skills and sandbox for that machine until you revoke it.",
    input: z.object({
      uid: Uid.describe('Your own uid (the agent); yours when omitted'),
      slug: Slug.describe('Machine whose current owner you delegate'),
      access: DelegationAccess,
    }),
    output: z.object({ ok: z.literal(true), delegation: Delegation, changed: z.boolean().describe('False when the same delegation was already in force') }),
    idempotent: true,
    handler: async ({ uid, slug, access }, { caller, services }) => {
      const { machine } = await services.machines.readable(slug, caller);
      return { ok: true as const, ...(await services.agents.delegations.grant(uid, machine, access)) };
    },
  }),
  defineAction({
    id: 'agentDelegation.list',
    action: 'delegations',
    method: 'GET',
    path: '/api/agent/{uid}/delegations',
    auth: 'bearer',
    agentStore: 'self',
    area: 'agents',
    summary: 'Lists your delegations in force and recent changes.',
    input: z.object({ uid: Uid.describe('Your own uid (the agent); yours when omitted') }),
    output: z.object({
      ok: z.literal(true),
      delegations: z.array(Delegation),
      history: z
        .array(Delegation.omit({ created_at: true }).extend({ type: z.enum(['delegation.granted', 'delegation.revoked']), at: IsoDate }))
        .describe('The last 50 grants and revocations, newest first'),
    }),
    idempotent: true,
    handler: async ({ uid }, { services }) => {
      const [delegations, history] = await Promise.all([services.agents.delegations.list(uid), services.agents.delegations.history(uid, 50)]);
      return { ok: true as const, delegations, history };
    },
  }),
  defineAction({
    id: 'agentDelegation.revoke',
    action: 'revoke',
    method: 'DELETE',
    path: '/api/agent/{uid}/delegations/{slug}',
    auth: 'bearer',
    agentStore: 'self',
    area: 'agents',
    summary: "Revokes your delegation to a machine's owner; their next call is refused, and revoking one that is not in force changes nothing.",
    input: z.object({ uid: Uid.describe('Your own uid (the agent); yours when omitted'), slug: Slug.describe('Machine whose delegation to revoke') }),
    output: z.object({ ok: z.literal(true), slug: Slug, changed: z.boolean().describe('False when no delegation was in force') }),
    idempotent: true,
    handler: async ({ uid, slug }, { services }) => ({ ok: true as const, slug, ...(await services.agents.delegations.revoke(uid, slug)) }),
  }),
];
