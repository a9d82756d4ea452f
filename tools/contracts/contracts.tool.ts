import { z } from 'zod';
import { defineAction, defineTool } from '../../src/registry/types.js';
import { Cursor, Hex64, JsonObject, Limit, Slug, Tick } from '../../src/registry/common-schemas.js';
import { Contract, ContractId, ContractStatus, TemplateId, TransitionRow, asOutput } from './contracts.schemas.js';

const OracleReading = z.object({ value: z.unknown(), tick_number: Tick });

export const contractsTool = defineTool({
  name: 'core_contracts',
  toolset: 'contracts',
  title: 'Machine contracts',
  description:
    "Reads the state contracts deployed on a machine: list them, read one with its recent transitions, check a contract's integrity hash for tampering, or list the oracle contracts with their latest readings. Use it to find a contract id before driving, controlling or auditing it.",
  actions: [
    defineAction({
      id: 'contracts.listContracts',
      action: 'list',
      method: 'GET',
      path: '/api/chain/{slug}/contracts',
      auth: 'bearer',
      role: 'viewer',
      guards: 'slug',
      area: 'contracts',
      summary: 'Lists the contracts of a machine; optionally filtered by status or template, newest first.',
      input: z.object({
        slug: Slug,
        status: ContractStatus.optional(),
        template_id: TemplateId.optional(),
        limit: Limit.max(200).default(50),
        cursor: Cursor.optional(),
      }),
      output: z.object({ ok: z.literal(true), contracts: z.array(Contract), next_cursor: z.string().nullable() }),
      idempotent: true,
      handler: async ({ slug, ...query }, { services }) => asOutput({ ok: true as const, ...(await services.contracts.crud.list(slug, query)) }),
    }),
    defineAction({
      id: 'contracts.getContract',
      action: 'get',
      method: 'GET',
      path: '/api/chain/{slug}/contracts/{id}',
      auth: 'bearer',
      role: 'viewer',
      guards: 'slug',
      area: 'contracts',
      summary:
        'Reads one contract with its recent transitions. Returns the definition, current state, status, version, next fire and the 20 most recent transitions, newest first.',
      input: z.object({ slug: Slug, id: ContractId }),
      output: z.object({ ok: z.literal(true), contract: Contract, transitions: z.array(TransitionRow) }),
      idempotent: true,
      handler: async ({ slug, id }, { services }) => {
        const { contract, transitions } = await services.contracts.crud.get(slug, id);
        return asOutput({ ok: true as const, contract, transitions: transitions as z.infer<typeof TransitionRow>[] });
      },
    }),
    defineAction({
      id: 'contracts.checkIntegrity',
      action: 'integrity',
      method: 'GET',
      path: '/api/chain/{slug}/contracts/{id}/integrity',
      auth: 'public',
      area: 'contracts',
      summary: 'Checks a contract for tampering; re-hashes its live definition and compares it with the stored integrity hash and the version log.',
      input: z.object({ slug: Slug, id: ContractId }),
      output: z.object({
        ok: z.literal(true),
        contract_id: ContractId,
        current_version_no: z.number().int().min(1),
        stored_hash: Hex64,
        live_hash: Hex64,
        version_hash: Hex64.nullable().describe(
          'Hash of the current version as the version log holds it; null when that row is missing or does not match its own definition',
        ),
        match: z.boolean().describe('False means the live definition no longer matches its stored hash or its version log row'),
        tick_number: Tick.describe('Tick of the check'),
      }),
      idempotent: true,
      handler: async ({ slug, id }, { services, caller }) => {
        // Public route: a private machine the caller cannot read is NOT_FOUND.
        await services.machines.readable(slug, caller);
        return { ok: true as const, ...(await services.contracts.crud.integrity(slug, id)) };
      },
    }),
    defineAction({
      id: 'contracts.listOracles',
      action: 'oracles',
      method: 'GET',
      path: '/api/chain/{slug}/oracles',
      auth: 'bearer',
      role: 'viewer',
      guards: 'slug',
      area: 'contracts',
      summary: "Lists the machine's oracle contracts; those whose definition has an oracle, each with its latest reading and a short recent series.",
      input: z.object({
        slug: Slug,
        series: z.number().int().min(0).max(100).default(20).describe('Recent readings per oracle'),
      }),
      output: z.object({
        ok: z.literal(true),
        oracles: z.array(
          z.object({
            contract_id: ContractId,
            name: z.string(),
            oracle: JsonObject.describe('The definition.oracle member'),
            latest: OracleReading.nullable().describe('Latest reading; null before the first one'),
            series: z.array(OracleReading).describe('Recent readings, oldest first'),
          }),
        ),
      }),
      idempotent: true,
      handler: async ({ slug, series }, { services }) => ({ ok: true as const, oracles: await services.contracts.audit.oracles(slug, series) }),
    }),
  ],
});
