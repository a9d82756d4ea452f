import { z } from 'zod';
import { defineAction, defineTool } from '../../src/registry/types.js';
import { Cursor, IsoDate, Limit, Slug, Tick } from '../../src/registry/common-schemas.js';
import {
  ContractDefinition,
  ContractId,
  ContractStatus,
  EventName,
  OperatorId,
  PredictedFire,
  StateName,
  TemplateId,
  TransitionRow,
  Trigger,
  asOutput,
} from './contracts.schemas.js';
import type { PublicContract as PublicContractView } from '../../src/domain/contracts/public-directory.service.js';
import { wireShape } from '../../src/registry/wire-shape.js';

const PublicContract = wireShape<PublicContractView>()(
  z.object({
    id: ContractId,
    slug: Slug,
    name: z.string(),
    template_id: z.string().nullable(),
    current_state: StateName,
    status: ContractStatus,
    current_version_no: z.number().int().min(1),
    fire_count: z.number().int().min(0),
    next_fire: Tick.nullable(),
    created_at: IsoDate,
  }),
);

const ById = z.object({ id: ContractId });

export const contractsPublicTool = defineTool({
  name: 'core_contracts_public',
  toolset: 'contracts',
  title: 'Public contracts',
  description:
    'Reads contracts on public machines without a key: a searchable directory, one contract with its status, its recent transitions, its next 10 fires, its cross-machine subscribers, and a superposition view of where it can go next. Private machines never appear.',
  actions: [
    defineAction({
      id: 'contracts.listPublic',
      action: 'list',
      method: 'GET',
      path: '/api/contracts/public',
      auth: 'public',
      area: 'contracts',
      summary: 'Lists contracts on public machines; filterable by text, machine, template and current state, one page at a time.',
      input: z.object({
        q: z.string().max(200).optional().describe('Search text. Matched in any case against contract name and machine slug'),
        slug: Slug.optional().describe('Only contracts of this machine'),
        template_id: TemplateId.optional(),
        state: StateName.optional().describe('Only contracts currently in this state'),
        limit: Limit.max(200).default(50),
        cursor: Cursor.optional(),
      }),
      output: z.object({ ok: z.literal(true), contracts: z.array(PublicContract), next_cursor: z.string().nullable() }),
      idempotent: true,
      handler: async (query, { services }) => ({ ok: true as const, ...(await services.contracts.directory.list(query)) }),
    }),
    defineAction({
      id: 'contracts.getPublic',
      action: 'get',
      method: 'GET',
      path: '/api/contracts/public/{id}',
      auth: 'public',
      area: 'contracts',
      summary: 'Reads one public contract. It comes with its definition and status.',
      input: ById,
      output: z.object({
        ok: z.literal(true),
        contract: PublicContract.extend({ definition: ContractDefinition }),
        last_fire_tick: Tick.nullable(),
      }),
      idempotent: true,
      handler: async ({ id }, { services }) => asOutput({ ok: true as const, ...(await services.contracts.directory.get(id)) }),
    }),
    defineAction({
      id: 'contracts.getPublicAudit',
      action: 'audit',
      method: 'GET',
      path: '/api/contracts/public/{id}/audit',
      auth: 'public',
      area: 'contracts',
      summary: 'Lists its recent transitions. Newest first.',
      input: ById.extend({ limit: z.number().int().min(1).max(100).default(20).describe('How many recent transitions') }),
      output: z.object({ ok: z.literal(true), contract_id: ContractId, transitions: z.array(TransitionRow) }),
      idempotent: true,
      handler: async ({ id, limit }, { services }) => ({
        ok: true as const,
        contract_id: id,
        transitions: (await services.contracts.directory.audit(id, limit)) as z.infer<typeof TransitionRow>[],
      }),
    }),
    defineAction({
      id: 'contracts.predictPublicNextFires',
      action: 'next_fires',
      method: 'GET',
      path: '/api/contracts/public/{id}/next-fires',
      auth: 'public',
      area: 'contracts',
      summary: 'Predicts its next 10 fires; event-triggered contracts return an empty list and a note.',
      input: ById,
      output: z.object({
        ok: z.literal(true),
        contract_id: ContractId,
        fires: z.array(PredictedFire).max(10),
        note: z.string().nullable(),
      }),
      idempotent: true,
      handler: async ({ id }, { services }) => ({ ok: true as const, contract_id: id, ...(await services.contracts.directory.nextFires(id)) }),
    }),
    defineAction({
      id: 'contracts.listPublicSubscribers',
      action: 'subscribers',
      method: 'GET',
      path: '/api/contracts/public/{id}/subscribers',
      auth: 'public',
      area: 'contracts',
      summary: 'Lists contracts elsewhere that listen to its events.',
      input: ById,
      output: z.object({
        ok: z.literal(true),
        contract_id: ContractId,
        subscribers: z.array(
          z.object({
            slug: Slug.describe('Machine of the listening contract'),
            contract_id: ContractId.describe('Listening contract'),
            events: z.array(EventName).describe('Events it listens to'),
            since_tick: Tick.describe('Tick it started listening'),
          }),
        ),
      }),
      idempotent: true,
      handler: async ({ id }, { services }) => ({ ok: true as const, contract_id: id, subscribers: await services.contracts.directory.subscribers(id) }),
    }),
    defineAction({
      id: 'contracts.getPublicSuperposition',
      action: 'superposition',
      method: 'GET',
      path: '/api/contracts/public/{id}/superposition',
      auth: 'public',
      area: 'contracts',
      summary: 'Shows every transition it could take now; unresolved; computes and writes nothing.',
      input: ById,
      output: z.object({
        ok: z.literal(true),
        contract_id: ContractId,
        current_state: StateName,
        tick_number: Tick,
        branches: z.array(
          z.object({
            to: StateName,
            operators: z.array(OperatorId),
            condition: z.string().nullable(),
            trigger: Trigger.nullable(),
            proof_required: z.boolean(),
          }),
        ),
      }),
      idempotent: true,
      handler: async ({ id }, { services }) => asOutput({ ok: true as const, contract_id: id, ...(await services.contracts.directory.superposition(id)) }),
    }),
  ],
});
