import { z } from 'zod';
import { defineAction, defineTool } from '../../src/registry/types.js';
import { Slug } from '../../src/registry/common-schemas.js';
import { Machine } from './machines.schemas.js';

export const spinUpTool = defineTool({
  name: 'core_spin_up',
  toolset: 'machines',
  title: 'Spin up a machine',
  description:
    'Creates a state machine (an append-only audit chain named by a slug) that you own, with an admin API key shown only once. Use it first to log events, deploy contracts or publish a site. Without a slug, the machine is named after your uid (the answer says so).',
  actions: [
    defineAction({
      id: 'chain.createMachine',
      lastingAccess: 'Creating a machine (it mints the machine key)',
      action: 'create',
      method: 'POST',
      path: '/api/chain/state-machines',
      auth: 'public',
      callerRequired: true,
      area: 'chain',
      summary: 'Creates a machine owned by the caller and returns the machine plus its admin-scope API key, whose raw value is shown only in this answer.',
      input: z.object({
        slug: Slug.optional().describe(
          'Desired slug; derived from the caller uid when omitted (suffixed -2, -3... on collision); a taken slug given here is a conflict',
        ),
        is_public: z.boolean().default(false).describe('Readable by anyone, listed publicly; private ones only by members'),
        display_name: z.string().min(1).max(255).optional().describe('Human-readable name'),
        purpose: z.string().max(4000).optional().describe('What the machine is for'),
      }),
      output: z.object({
        ok: z.literal(true),
        machine: Machine,
        api_key: z.string().describe('Raw admin-scope machine key (`core_...`); shown once, only its SHA-256 is stored'),
        api_key_id: z.string().describe('Id of that key, for listing or revoking it later'),
        note: z.string().optional().describe('Present when no slug was sent: which slug was chosen and why'),
      }),
      handler: async (input, { services, caller }) => {
        const created = await services.machines.create(input, caller);
        if (input.slug !== undefined) return { ok: true as const, ...created };
        const note = `No slug was sent, so the machine is named "${created.machine.slug}" after your uid; send "slug" to choose the name.`;
        return { ok: true as const, ...created, note };
      },
    }),
  ],
});
