import { z } from 'zod';
import { defineAction, defineTool } from '../../src/registry/types.js';
import { Cursor, Limit, Slug, Tick } from '../../src/registry/common-schemas.js';
import { ContractId, StateName, TransitionRow } from './contracts.schemas.js';

export const contractAuditTool = defineTool({
  name: 'core_contract_audit',
  toolset: 'contracts',
  title: 'Contract audit',
  description:
    "Reads and checks a contract's transition history: page through every transition row (driven, triggered, failed), or verify the whole proof chain and that it ends in the contract's current state.",
  actions: [
    defineAction({
      id: 'contracts.listAudit',
      action: 'history',
      method: 'GET',
      path: '/api/chain/{slug}/contracts/{id}/audit',
      auth: 'bearer',
      role: 'viewer',
      guards: 'slug',
      area: 'contracts',
      summary: 'Lists the transition history. Oldest first, one page at a time.',
      input: z.object({
        slug: Slug,
        id: ContractId,
        since_tick: Tick.optional().describe('Only rows at or after this tick'),
        success: z.boolean().optional().describe('Only successful or only failed rows'),
        limit: Limit.max(500).default(100),
        cursor: Cursor.optional(),
      }),
      output: z.object({ ok: z.literal(true), transitions: z.array(TransitionRow), next_cursor: z.string().nullable() }),
      idempotent: true,
      handler: async ({ slug, id, ...query }, { services }) => {
        const record = await services.contracts.core.find(slug, id);
        const page = await services.contracts.audit.history(record, query);
        return { ok: true as const, transitions: page.transitions as z.infer<typeof TransitionRow>[], next_cursor: page.next_cursor };
      },
    }),
    defineAction({
      id: 'contracts.verifyProofChain',
      action: 'verify',
      method: 'POST',
      path: '/api/chain/{slug}/contracts/{id}/verify',
      auth: 'bearer',
      role: 'viewer',
      guards: 'slug',
      area: 'contracts',
      summary:
        "Verifies the contract's transition chain; checks hash links, that each transition starts where the previous ended and that the last ends in the current state; returns the verdict.",
      input: z.object({ slug: Slug, id: ContractId }),
      output: z.object({
        ok: z.literal(true),
        valid: z.boolean(),
        broken_at: z.string().nullable().describe('null when valid; else the id of the first bad transition row, or "final_state_mismatch"'),
        reason: z.string().nullable().describe('What is wrong at broken_at; null when valid'),
        current_state: StateName,
        total_transitions: z.number().int().min(0).describe('Successful transitions walked'),
        tick_number: Tick.describe('Tick of the check'),
      }),
      idempotent: true,
      handler: async ({ slug, id }, { services }) => {
        const record = await services.contracts.core.find(slug, id);
        return { ok: true as const, ...(await services.contracts.audit.verify(record)) };
      },
    }),
  ],
});
