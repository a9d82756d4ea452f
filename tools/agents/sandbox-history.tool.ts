import { z } from 'zod';
import { defineAction, defineTool } from '../../src/registry/types.js';
import { Cursor, Slug, Uid } from '../../src/registry/common-schemas.js';
import { SandboxQuota, SandboxRun } from './agents.schemas.js';

export const sandboxHistoryTool = defineTool({
  name: 'core_sandbox_history',
  toolset: 'agents',
  title: 'Sandbox runs and quota',
  description:
    "Looks back at an agent's sandbox use. `runs` lists past runs newest first with their output; `quota` shows runs and mz used in the rolling 24 h window against the limits (20 runs, 60,000 mz) and when the next run frees up.",
  actions: [
    defineAction({
      id: 'sandbox.listRuns',
      action: 'runs',
      method: 'GET',
      path: '/api/agent/{uid}/sandbox/runs',
      auth: 'bearer',
      agentStore: 'read',
      area: 'agents',
      summary: "Lists the agent's sandbox runs; newest first, with exit code, captured output (64 KB per stream) and units.",
      input: z.object({
        uid: Uid.describe("Agent uid; yours when omitted (another agent's under its delegation)"),
        limit: z.number().int().min(1).max(100).default(20).describe('Page size'),
        cursor: Cursor.optional(),
        slug: Slug.optional().describe('Only runs made for this machine'),
      }),
      output: z.object({
        ok: z.literal(true),
        runs: z.array(SandboxRun),
        next_cursor: z.string().nullable(),
      }),
      idempotent: true,
      handler: async ({ uid, limit, cursor, slug }, { services }) => {
        // A delegate always names its machine (the pipeline's check needs it), so it sees only the runs made for it.
        const page = await services.sandbox.runs(uid, { limit, ...(cursor !== undefined ? { cursor } : {}), ...(slug !== undefined ? { slug } : {}) });
        return { ok: true as const, ...page };
      },
    }),
    defineAction({
      id: 'sandbox.getQuota',
      action: 'quota',
      method: 'GET',
      path: '/api/agent/{uid}/sandbox/quota',
      auth: 'bearer',
      agentStore: 'read',
      area: 'agents',
      summary: "Reports the agent's sandbox quota; runs and units used in the rolling 24 h window against the limits, and when the next run frees up.",
      input: z.object({
        uid: Uid.describe("Agent uid; yours when omitted (another agent's under its delegation)"),
        slug: Slug.optional().describe("Machine whose owner acts by the agent's delegation; omit when the agent calls"),
      }),
      output: z.object({ ok: z.literal(true), ...SandboxQuota.shape }),
      idempotent: true,
      handler: async ({ uid }, { services }) => {
        return { ok: true as const, ...(await services.sandbox.quota(uid)) };
      },
    }),
  ],
});
