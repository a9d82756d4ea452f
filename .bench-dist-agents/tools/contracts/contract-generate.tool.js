import { z } from 'zod';
import { defineAction, defineTool } from '../../src/registry/types.js';
import { Slug } from '../../src/registry/common-schemas.js';
import { ContractDefinition } from './contracts.schemas.js';
export const contractGenerateTool = defineTool({
    name: 'core_contract_generate',
    toolset: 'contracts',
    title: 'Draft a contract',
    description: 'Turns a plain-language description ("alert when the 60-tick average reading exceeds 100") into a draft contract definition, starting from the closest catalogue template. Nothing is deployed: review the draft, then create it with core_contract_deploy. Action: generate.',
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
                slug: Slug.optional().describe('Machine the draft is meant for, so its operators and events can be taken into account'),
            }),
            output: z.object({
                ok: z.literal(true),
                definition: ContractDefinition.describe('Draft definition; not validated against a machine until deployed'),
                template_id: z.string().nullable().describe('Template the draft started from, or null when built from scratch'),
                notes: z.array(z.string()).describe('What was adapted from the template and what to check before deploying'),
            }),
            idempotent: true,
        }),
    ],
});
//# sourceMappingURL=contract-generate.tool.js.map