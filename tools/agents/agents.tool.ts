import { z } from 'zod';
import { defineAction, defineTool } from '../../src/registry/types.js';
import { Cursor, IsoDate, Limit, Slug, Uid } from '../../src/registry/common-schemas.js';
import { SkillName } from './agents.schemas.js';
import type { AgentEntry as DirectoryEntry } from '../../src/domain/agents/directory.service.js';
import { wireShape } from '../../src/registry/wire-shape.js';

/** Public directory entry: nothing private (no keys, no state, no private machines). */
const AgentEntry = wireShape<DirectoryEntry>()(
  z.object({
    uid: Uid,
    display_name: z.string().nullable().describe("The `display_name` member of the agent's state"),
    skills: z.array(SkillName).describe('Attached skills'),
    public_machines: z.array(Slug).describe('Public machines the agent works on'),
    created_at: IsoDate,
  }),
);

export const agentsTool = defineTool({
  name: 'core_agents',
  toolset: 'agents',
  title: 'Agent directory',
  description:
    'Public directory of agents. It shows display name, attached skills and public machines, nothing private. Use `list` to browse or search and `get` to read one agent by uid; no key needed.',
  actions: [
    defineAction({
      id: 'agent.list',
      action: 'list',
      method: 'GET',
      path: '/api/agents',
      auth: 'public',
      area: 'agents',
      summary: 'Lists agents in the public directory; with display name, skills and public machines, one page at a time.',
      input: z.object({
        q: z.string().max(200).optional().describe('Search text. Matched in any case against uid and display name'),
        limit: Limit.default(50),
        cursor: Cursor.optional(),
      }),
      output: z.object({
        ok: z.literal(true),
        agents: z.array(AgentEntry),
        next_cursor: z.string().nullable(),
      }),
      idempotent: true,
      handler: async ({ q, limit, cursor }, { services }) => ({
        ok: true as const,
        ...(await services.agents.directory.list({ limit, ...(q !== undefined ? { q } : {}), ...(cursor !== undefined ? { cursor } : {}) })),
      }),
    }),
    defineAction({
      id: 'agent.get',
      action: 'get',
      method: 'GET',
      path: '/api/agents/{uid}',
      auth: 'public',
      area: 'agents',
      summary: "Reads one agent's public directory entry: display name, attached skills and public machines.",
      input: z.object({ uid: Uid.describe('Agent uid') }),
      output: z.object({ ok: z.literal(true), agent: AgentEntry }),
      idempotent: true,
      handler: async ({ uid }, { services }) => ({ ok: true as const, agent: await services.agents.directory.get(uid) }),
    }),
  ],
});
