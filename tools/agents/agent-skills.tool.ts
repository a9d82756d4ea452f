import { z } from 'zod';
import { defineAction, defineTool } from '../../src/registry/types.js';
import { Hex64, IsoDate, Slug, Uid } from '../../src/registry/common-schemas.js';
import { SkillName } from './agents.schemas.js';
import type { AttachedSkill as SkillAttachment } from '../../src/domain/agents/skill-repository.js';
import { wireShape } from '../../src/registry/wire-shape.js';

const AttachedSkill = wireShape<SkillAttachment>()(
  z.object({
    name: SkillName,
    description: z.string(),
    bytes: z.number().int().min(0),
    sha256: Hex64.describe('SHA-256 of the body as persisted'),
    attached_at: IsoDate,
  }),
);

const AgentRef = {
  uid: Uid.describe("Agent uid; yours when omitted (another agent's under its delegation)"),
  slug: Slug.optional().describe("Machine whose owner acts by the agent's delegation; omit when the agent calls"),
};

export const agentSkillsTool = defineTool({
  name: 'core_agent_skills',
  toolset: 'agents',
  title: 'Agent skills',
  description:
    "Manages the skills (Markdown guides on using this service: operating a machine, writing a contract, verifying a receipt...) attached to an agent. `preview` shows a skill's full body without a key; `attach` and `detach` are idempotent; `list` shows what is attached.",
  actions: [
    defineAction({
      id: 'skill.listAttached',
      action: 'list',
      method: 'GET',
      path: '/api/agent/{uid}/skills',
      auth: 'bearer',
      agentStore: 'read',
      area: 'agents',
      summary: "Lists the agent's skills. With their descriptions and digests.",
      input: z.object(AgentRef),
      output: z.object({ ok: z.literal(true), skills: z.array(AttachedSkill) }),
      idempotent: true,
      handler: async ({ uid }, { services }) => {
        return { ok: true as const, skills: await services.agents.skills.list(uid) };
      },
    }),
    defineAction({
      id: 'skill.attach',
      action: 'attach',
      method: 'POST',
      path: '/api/agent/{uid}/skills/attach',
      auth: 'bearer',
      agentStore: 'write',
      area: 'agents',
      summary: 'Attaches a catalogue skill; attaching it again changes nothing.',
      input: z.object({ ...AgentRef, name: SkillName }),
      output: z.object({
        ok: z.literal(true),
        skill: AttachedSkill,
        changed: z.boolean().describe('False when the skill was already attached'),
      }),
      idempotent: true,
      handler: async ({ uid, name }, { services }) => {
        return { ok: true as const, ...(await services.agents.skills.attach(uid, name)) };
      },
    }),
    defineAction({
      id: 'skill.detach',
      action: 'detach',
      method: 'POST',
      path: '/api/agent/{uid}/skills/detach',
      auth: 'bearer',
      agentStore: 'write',
      area: 'agents',
      summary: 'Detaches a skill from the agent; detaching one that is not attached changes nothing.',
      input: z.object({ ...AgentRef, name: SkillName }),
      output: z.object({
        ok: z.literal(true),
        name: SkillName,
        changed: z.boolean().describe('False when the skill was not attached'),
      }),
      idempotent: true,
      handler: async ({ uid, name }, { services }) => {
        return { ok: true as const, name, ...(await services.agents.skills.detach(uid, name)) };
      },
    }),
    defineAction({
      id: 'skill.preview',
      action: 'preview',
      method: 'GET',
      path: '/api/skills/preview',
      auth: 'public',
      area: 'agents',
      summary: "Returns a catalogue skill's Markdown; exactly as attach would persist it.",
      input: z.object({ name: SkillName }),
      output: z.object({
        ok: z.literal(true),
        name: SkillName,
        description: z.string(),
        body: z.string().describe('Markdown body with its front matter'),
        bytes: z.number().int().min(0),
        sha256: Hex64,
      }),
      idempotent: true,
      handler: async ({ name }, { services }) => {
        const skill = await services.agents.skills.preview(name);
        return { ok: true as const, name: skill.name, description: skill.description, body: skill.body, bytes: skill.bytes, sha256: skill.sha256 };
      },
    }),
  ],
});
