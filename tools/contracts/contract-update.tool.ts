import { z } from 'zod';
import { defineAction, defineTool } from '../../src/registry/types.js';
import { Hex64, IsoDate, Slug, Tick, Uid } from '../../src/registry/common-schemas.js';
import { Contract, ContractDefinition, ContractId, asOutput } from './contracts.schemas.js';
import type { VersionView } from '../../src/domain/contracts/contracts.service.js';
import { wireShape } from '../../src/registry/wire-shape.js';

const VersionNo = z.number().int().min(1);

const Version = wireShape<VersionView>()(
  z.object({
    n: VersionNo,
    definition_hash: Hex64,
    created_by: Uid,
    tick_number: Tick,
    created_at: IsoDate,
    note: z.string().nullable().describe('Change note given with the edit'),
    rolled_back_from: VersionNo.nullable().describe('For a rollback row, the version whose definition it restored'),
  }),
);

const Changed = z.object({
  ok: z.literal(true),
  contract: Contract,
  version_no: VersionNo.describe('The new current_version_no'),
});

export const contractUpdateTool = defineTool({
  name: 'core_contract_update',
  toolset: 'contracts',
  title: 'Edit contract versions',
  description:
    "Edits a contract's definition and its versions. Every edit and every rollback adds a numbered version and bumps current_version_no; history is never rewritten. Owner only for changes.",
  actions: [
    defineAction({
      id: 'contracts.updateContract',
      action: 'update',
      method: 'PATCH',
      path: '/api/chain/{slug}/contracts/{id}',
      auth: 'bearer',
      role: 'owner',
      guards: 'slug',
      area: 'contracts',
      summary: 'Replaces the live definition with a new one; bumps current_version_no and returns the updated contract.',
      input: z.object({
        slug: Slug,
        id: ContractId,
        definition: ContractDefinition,
        note: z.string().max(500).optional(),
      }),
      output: Changed,
      handler: async ({ slug, id, definition, note }, { services, caller }) =>
        asOutput({
          ok: true as const,
          ...(await services.contracts.crud.update(slug, id, caller, definition, note)),
        }),
    }),
    defineAction({
      id: 'contracts.rollbackContract',
      action: 'rollback',
      method: 'POST',
      path: '/api/chain/{slug}/contracts/{id}/rollback',
      auth: 'bearer',
      role: 'owner',
      guards: 'slug',
      area: 'contracts',
      summary: 'Restores an earlier version as a new one (history stays linear); returns the contract.',
      input: z.object({
        slug: Slug,
        id: ContractId,
        to_version: VersionNo.describe('Version to restore'),
      }),
      output: Changed,
      handler: async ({ slug, id, to_version }, { services, caller }) =>
        asOutput({
          ok: true as const,
          ...(await services.contracts.crud.rollback(slug, id, caller, to_version)),
        }),
    }),
    defineAction({
      id: 'contracts.listVersions',
      action: 'versions',
      method: 'GET',
      path: '/api/chain/{slug}/contracts/{id}/versions',
      auth: 'bearer',
      role: 'viewer',
      guards: 'slug',
      area: 'contracts',
      summary: 'Lists the versions; newest first, without their definitions.',
      input: z.object({ slug: Slug, id: ContractId }),
      output: z.object({ ok: z.literal(true), current_version_no: VersionNo, versions: z.array(Version) }),
      idempotent: true,
      handler: async ({ slug, id }, { services }) => ({ ok: true as const, ...(await services.contracts.crud.versions(slug, id)) }),
    }),
    defineAction({
      id: 'contracts.getVersion',
      action: 'version',
      method: 'GET',
      path: '/api/chain/{slug}/contracts/{id}/versions/{n}',
      auth: 'bearer',
      role: 'viewer',
      guards: 'slug',
      area: 'contracts',
      summary: 'Reads one version with its definition.',
      input: z.object({
        slug: Slug,
        id: ContractId,
        n: z
          .string()
          .regex(/^[1-9][0-9]{0,8}$/, 'a version number is a positive integer')
          .describe('Version number'),
      }),
      output: z.object({ ok: z.literal(true), version: Version.extend({ definition: ContractDefinition }) }),
      idempotent: true,
      handler: async ({ slug, id, n }, { services }) => asOutput({ ok: true as const, version: await services.contracts.crud.version(slug, id, Number(n)) }),
    }),
  ],
});
