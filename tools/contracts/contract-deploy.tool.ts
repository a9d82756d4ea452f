import { z } from 'zod';
import { defineAction, defineTool } from '../../src/registry/types.js';
import { JsonObject, Slug } from '../../src/registry/common-schemas.js';
import { Contract, ContractDefinition, TemplateId, asOutput } from './contracts.schemas.js';

const ContractName = z.string().min(1).max(255).describe('Display name; defaults to the definition name');

const Created = z.object({
  ok: z.literal(true),
  contract: Contract,
  template_id: z.string().nullable().describe('Template it came from, or null for a custom definition'),
});

export const contractDeployTool = defineTool({
  name: 'core_contract_deploy',
  toolset: 'contracts',
  title: 'Deploy a contract',
  description:
    'Creates a state contract from a template or your own definition (core_contract_generate drafts one). The definition is validated (one initial state, known operators, valid triggers) and the creation is written to the audit chain.',
  actions: [
    defineAction({
      id: 'contracts.deployTemplate',
      action: 'from_template',
      method: 'POST',
      path: '/api/contracts/templates/{id}/deploy',
      auth: 'bearer',
      role: 'operator',
      guards: 'slug',
      area: 'contracts',
      summary: 'Deploys a catalogue template; optionally with a name and parameter values, and returns the new contract.',
      input: z.object({
        id: TemplateId,
        slug: Slug,
        name: ContractName.optional(),
        params: JsonObject.optional().describe('Template parameters, e.g. {"every_ticks": 120}'),
      }),
      output: Created,
      handler: async ({ id, slug, name, params }, { services, caller }) =>
        asOutput({
          ok: true as const,
          ...(await services.contracts.crud.create(slug, caller, { template_id: id, name, params })),
        }),
    }),
    defineAction({
      id: 'contracts.createContract',
      action: 'create',
      method: 'POST',
      path: '/api/chain/{slug}/contracts',
      auth: 'bearer',
      role: 'operator',
      guards: 'slug',
      area: 'contracts',
      summary: 'Creates a contract from a template_id or an inline definition (exactly one of the two); returns it.',
      input: z.object({
        slug: Slug,
        template_id: TemplateId.optional().describe('Template to instantiate; give this or definition'),
        definition: ContractDefinition.optional().describe('Inline definition; give this or template_id'),
        name: ContractName.optional(),
        params: JsonObject.optional().describe('Template parameters, with template_id only'),
      }),
      output: Created,
      handler: async ({ slug, ...input }, { services, caller }) =>
        asOutput({ ok: true as const, ...(await services.contracts.crud.create(slug, caller, input)) }),
    }),
    defineAction({
      id: 'contracts.createCustomContract',
      action: 'create_custom',
      method: 'POST',
      path: '/api/chain/{slug}/contracts/custom',
      auth: 'bearer',
      role: 'operator',
      guards: 'slug',
      area: 'contracts',
      summary: 'Creates a contract from a raw definition and returns it.',
      input: z.object({ slug: Slug, definition: ContractDefinition, name: ContractName.optional() }),
      output: Created,
      handler: async ({ slug, definition, name }, { services, caller }) =>
        asOutput({
          ok: true as const,
          ...(await services.contracts.crud.create(slug, caller, { definition, name })),
        }),
    }),
  ],
});
