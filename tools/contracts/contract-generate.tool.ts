import { z } from 'zod';
import { defineAction, defineTool } from '../../src/registry/types.js';
import { JsonObject, Slug } from '../../src/registry/common-schemas.js';
import { ContractDefinition, asOutput } from './contracts.schemas.js';

export const contractGenerateTool = defineTool({
  name: 'core_contract_generate',
  toolset: 'contracts',
  title: 'Draft a contract',
  description:
    'Drafts a contract definition from a plain-language description, e.g. "alert when the 60-tick average reading exceeds 100". Nothing is deployed: review it, then create it with core_contract_deploy.',
  actions: [
    defineAction({
      id: 'contracts.generateDraft',
      action: 'generate',
      method: 'POST',
      path: '/api/contracts/generate',
      auth: 'bearer',
      area: 'contracts',
      summary: 'Drafts a contract definition from a description and returns it with the template it started from; writes nothing.',
      input: z.object({
        description: z.string().min(3).max(4000).describe('What the contract should do, in plain language'),
        slug: Slug.optional().describe('Machine the draft is meant for. It must be one you can read'),
      }),
      output: z.object({
        ok: z.literal(true),
        definition: ContractDefinition.describe('Draft definition; it passes the contract validator (machine-specific checks run at deploy)'),
        template_id: z.string().nullable().describe('Template the draft started from, or null when built from scratch'),
        template_title: z.string().nullable(),
        score: z.number().min(0).describe('How well the template matched the description (0 when built from scratch)'),
        params: JsonObject.describe('Template parameters filled from the description, with their values'),
        notes: z.array(z.string()).describe('What was adapted from the template and what to check before deploying'),
        alternatives: z
          .array(z.object({ template_id: z.string(), title: z.string(), score: z.number() }))
          .describe('Next best templates, to try if the draft is not what you meant'),
      }),
      idempotent: true,
      handler: async ({ description, slug }, { services, caller }) => {
        // A named machine must be one the caller can read (a private one it cannot is NOT_FOUND).
        if (slug !== undefined) await services.machines.readable(slug, caller);
        return asOutput({ ok: true as const, ...services.templates.generate(description) });
      },
    }),
  ],
});
