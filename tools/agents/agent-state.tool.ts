import { z } from 'zod';
import { defineAction, defineTool } from '../../src/registry/types.js';
import { IsoDate, JsonObject, Slug, Uid } from '../../src/registry/common-schemas.js';
import { delegationActions } from './agent-delegations.actions.js';
import { PlanId } from './agents.schemas.js';

const AgentRef = {
  uid: Uid.describe("Agent uid; yours when omitted (another agent's under its delegation)"),
  slug: Slug.optional().describe("Machine whose owner acts by the agent's delegation; omit when the agent calls"),
};

const StateAnswer = z.object({
  ok: z.literal(true),
  uid: Uid,
  state: JsonObject.describe("The agent's JSON state, including the read-only `protocol` member"),
  protocol: z
    .object({
      current_plan_id: PlanId.nullable(),
      current_plan_slug: Slug.nullable(),
      locked_at: IsoDate.nullable().describe('When the current plan was locked'),
    })
    .describe('Protocol state; only plan locking changes it'),
  revision: z.number().int().min(0).describe('Incremented by every change'),
  updated_at: IsoDate.nullable(),
});

export const agentStateTool = defineTool({
  name: 'core_agent_state',
  toolset: 'agents',
  title: 'Agent state',
  description:
    "Reads or changes an agent's free-form JSON state. `get` returns it with the protocol state (current plan id); `patch` applies a JSON merge patch (RFC 7386: null removes a key). The `protocol` member is read-only and changes only when a plan is locked; the `display_name` member is public (shown in the agent directory); at most 64 KiB. `delegate`, `delegations` and `revoke` manage who else may use the agent's store: only the owner of a machine the agent delegated, never a member by role alone.",
  actions: [
    defineAction({
      id: 'agentState.get',
      action: 'get',
      method: 'GET',
      path: '/api/agent/{uid}/state',
      auth: 'bearer',
      agentStore: 'read',
      area: 'agents',
      summary: "Reads the agent's state. Returns the JSON state with its protocol state (current plan) and revision.",
      input: z.object(AgentRef),
      output: StateAnswer,
      idempotent: true,
      handler: async ({ uid }, { services }) => {
        // A lock a crash left unfinished is completed first, so the protocol state never lags a locked plan.
        await services.agents.plans.recoverAgent(uid);
        return { ok: true as const, ...(await services.agents.state.get(uid)) };
      },
    }),
    defineAction({
      id: 'agentState.patch',
      action: 'patch',
      method: 'PATCH',
      path: '/api/agent/{uid}/state',
      auth: 'bearer',
      agentStore: 'write',
      area: 'agents',
      summary: 'Applies a JSON merge patch; the protocol member cannot be patched.',
      input: z.object({
        ...AgentRef,
        patch: JsonObject.describe('JSON merge patch (RFC 7386): members replace, null deletes, objects merge'),
      }),
      output: StateAnswer,
      idempotent: true,
      handler: async ({ uid, patch }, { services }) => {
        await services.agents.plans.recoverAgent(uid);
        return { ok: true as const, ...(await services.agents.state.patch(uid, patch)) };
      },
    }),
    ...delegationActions,
  ],
});
