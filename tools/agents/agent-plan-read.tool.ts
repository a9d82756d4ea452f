import { z } from 'zod';
import { defineAction, defineTool } from '../../src/registry/types.js';
import { Cursor, Limit, Slug, Uid } from '../../src/registry/common-schemas.js';
import { PlanId, PlanRecord } from './agents.schemas.js';

/** Plans are kept per (agent, machine), so every read names both. */
const PlanScope = z.object({
  uid: Uid.describe("Agent uid; yours when omitted (another agent's under its delegation)"),
  slug: Slug,
});

export const agentPlanReadTool = defineTool({
  name: 'core_agent_plan_read',
  toolset: 'agents',
  title: 'Read agent plans',
  description:
    "Reads an agent's plans for one machine: the working draft, the current locked version, the history of locked versions, or one plan by id. Callable by the agent itself, or by the machine's owner when the agent delegated it (core_agent_state `delegate`).",
  actions: [
    defineAction({
      id: 'agentPlan.get',
      action: 'get',
      method: 'GET',
      path: '/api/agent/{uid}/plans/{planId}',
      auth: 'bearer',
      agentStore: 'read',
      area: 'agents',
      summary: 'Reads one plan by id. Draft or locked, with its status and version.',
      input: PlanScope.extend({ planId: PlanId }),
      output: z.object({ ok: z.literal(true), plan: PlanRecord }),
      idempotent: true,
      handler: async ({ uid, slug, planId }, { services }) => {
        return { ok: true as const, plan: await services.agents.plans.get(uid, slug, planId) };
      },
    }),
    defineAction({
      id: 'agentPlan.getCurrent',
      action: 'current',
      method: 'GET',
      path: '/api/agent/{uid}/plans/current',
      auth: 'bearer',
      agentStore: 'read',
      area: 'agents',
      summary: 'Reads the current locked plan; null when none was locked yet.',
      input: PlanScope,
      output: z.object({ ok: z.literal(true), plan: PlanRecord.nullable() }),
      idempotent: true,
      handler: async ({ uid, slug }, { services }) => {
        return { ok: true as const, plan: await services.agents.plans.current(uid, slug) };
      },
    }),
    defineAction({
      id: 'agentPlan.getDraft',
      action: 'draft',
      method: 'GET',
      path: '/api/agent/{uid}/plans/draft',
      auth: 'bearer',
      agentStore: 'read',
      area: 'agents',
      summary: 'Reads the draft plan, or null.',
      input: PlanScope,
      output: z.object({ ok: z.literal(true), plan: PlanRecord.nullable() }),
      idempotent: true,
      handler: async ({ uid, slug }, { services }) => {
        return { ok: true as const, plan: await services.agents.plans.draft(uid, slug) };
      },
    }),
    defineAction({
      id: 'agentPlan.listHistory',
      action: 'history',
      method: 'GET',
      path: '/api/agent/{uid}/plans/history',
      auth: 'bearer',
      agentStore: 'read',
      area: 'agents',
      summary: 'Lists the locked plan versions; newest first, including superseded ones.',
      input: PlanScope.extend({ limit: Limit.default(50), cursor: Cursor.optional() }),
      output: z.object({
        ok: z.literal(true),
        plans: z.array(PlanRecord),
        next_cursor: z.string().nullable(),
      }),
      idempotent: true,
      handler: async ({ uid, slug, limit, cursor }, { services }) => {
        const page = await services.agents.plans.history(uid, slug, { limit, ...(cursor !== undefined ? { cursor } : {}) });
        return { ok: true as const, ...page };
      },
    }),
  ],
});
