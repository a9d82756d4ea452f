import { z } from 'zod';
import { defineAction, defineTool } from '../../src/registry/types.js';
import { Slug, Uid } from '../../src/registry/common-schemas.js';
import { actorOf } from './agent-actor.js';
import { PlanBody, PlanId, PlanRecord } from './agents.schemas.js';

export const agentPlanWriteTool = defineTool({
  name: 'core_agent_plan_write',
  toolset: 'agents',
  title: 'Write agent plans',
  description:
    "Writes an agent's plan for one machine. `save_draft` creates or overwrites the single draft; `lock` promotes the draft (or a plan given in the body) to a new locked version, supersedes earlier versions, makes it the current plan and records `plan_locked` on the machine's chain.",
  actions: [
    defineAction({
      id: 'agentPlan.saveDraft',
      action: 'save_draft',
      method: 'POST',
      path: '/api/agent/{uid}/plans/draft',
      auth: 'bearer',
      agentStore: 'write',
      area: 'agents',
      summary: 'Creates or overwrites the draft plan; returns it.',
      input: z.object({
        uid: Uid.describe("Agent uid; yours when omitted (another agent's under its delegation)"),
        slug: Slug,
        plan: PlanBody,
      }),
      output: z.object({ ok: z.literal(true), plan: PlanRecord }),
      idempotent: true,
      handler: async ({ uid, plan }, ctx) => {
        const actor = actorOf(ctx);
        return { ok: true as const, plan: await ctx.services.agents.plans.saveDraft(uid, actor.machine!, plan) };
      },
    }),
    defineAction({
      id: 'agentPlan.lock',
      action: 'lock',
      method: 'POST',
      path: '/api/agent/{uid}/plans/lock',
      auth: 'bearer',
      agentStore: 'write',
      area: 'agents',
      summary:
        'Locks the draft, or the plan given, as the next version; version max(prior)+1, supersedes earlier versions, sets it current and audits plan_locked.',
      input: z.object({
        uid: Uid.describe("Agent uid; yours when omitted (another agent's under its delegation)"),
        slug: Slug,
        plan: PlanBody.optional().describe('Plan to lock instead of the stored draft'),
      }),
      output: z.object({
        ok: z.literal(true),
        plan: PlanRecord,
        superseded: z.array(PlanId).describe('Locked plans this lock superseded'),
        audit_row_id: z.string().describe("Id of the plan_locked row on the machine's chain"),
      }),
      handler: async ({ uid, plan }, ctx) => {
        const actor = actorOf(ctx);
        return { ok: true as const, ...(await ctx.services.agents.plans.lock(uid, actor.machine!, plan, actor.actor_uid)) };
      },
    }),
  ],
});
