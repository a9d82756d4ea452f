import { z } from 'zod';
import { defineAction, defineTool } from '../../src/registry/types.js';
import { Slug } from '../../src/registry/common-schemas.js';
import { Contract, ContractId, ExportEnvelope, asOutput } from './contracts.schemas.js';

export const contractTransferTool = defineTool({
  name: 'core_contract_transfer',
  toolset: 'contracts',
  title: 'Export and import contracts',
  description:
    'Moves a contract between machines as a portable envelope: export gives the definition plus metadata (never audit history, watermarks or secrets; owner only, free), and import creates a new contract from an envelope with clean runtime state.',
  actions: [
    defineAction({
      id: 'contracts.exportContract',
      action: 'export',
      method: 'GET',
      path: '/api/chain/{slug}/contracts/{id}/export',
      auth: 'bearer',
      role: 'owner',
      guards: 'slug',
      area: 'contracts',
      summary: 'Exports the contract as a portable envelope (definition and metadata, no runtime state, audit or secrets).',
      input: z.object({ slug: Slug, id: ContractId }),
      output: z.object({ ok: z.literal(true), envelope: ExportEnvelope }),
      idempotent: true,
      handler: async ({ slug, id }, { services }) => asOutput({ ok: true as const, envelope: await services.contracts.crud.exportContract(slug, id) }),
    }),
    defineAction({
      id: 'contracts.importContract',
      action: 'import',
      method: 'POST',
      path: '/api/chain/{slug}/contracts/import',
      auth: 'bearer',
      role: 'operator',
      guards: 'slug',
      area: 'contracts',
      summary: 'Creates a contract from an export envelope; it starts in its initial state with clean runtime state and is returned.',
      input: z.object({
        slug: Slug.describe('Machine to import into'),
        envelope: ExportEnvelope.describe('Export envelope'),
        name: z.string().min(1).max(255).optional().describe('Display name; defaults to the envelope name'),
      }),
      output: z.object({ ok: z.literal(true), contract: Contract }),
      handler: async ({ slug, envelope, name }, { services, caller }) =>
        asOutput({
          ok: true as const,
          contract: await services.contracts.crud.importContract(slug, caller, envelope, name),
        }),
    }),
  ],
});
