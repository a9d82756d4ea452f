import { z } from 'zod';
import { Hex64, IsoDate, MachineRole, MachineStatus, Slug, Tick, Uid } from '../../src/registry/common-schemas.js';
import { Machine, WriteResult } from '../../tools/machines/machines.schemas.js';

const Count = z.number().int().min(0);

/**
 * The output schemas of the operations tests call most, by operation id, so `callOp` can type their
 * answers. `defineAction` hands the registry an `ActionDef` whose schemas are erased to `z.ZodType`, so
 * the types cannot be read from the registry itself; these copies are checked against the registry's
 * own schemas by `test/unit/registry/operation-outputs.test.ts`, which fails when one drifts.
 */
export const operationOutputs = {
  'identity.mintDemoKey': z.object({
    ok: z.literal(true),
    key: z.string(),
    key_id: z.string(),
    uid: Uid,
    created_at: IsoDate,
    note: z.string(),
  }),
  'identity.describeCaller': z.object({
    ok: z.literal(true),
    authenticated: z.boolean(),
    uid: Uid.nullable(),
    credential: z.enum(['none', 'user-key', 'machine-key', 'session', 'site']),
    key_id: z.string().nullable(),
    scope: z.enum(['read', 'write', 'admin']).nullable(),
    machine: Slug.nullable(),
    machines_owned: z.array(Slug),
    machines_owned_total: z.number().int().min(0),
    note: z.string().optional(),
  }),
  'chain.createMachine': z.object({
    ok: z.literal(true),
    machine: Machine,
    api_key: z.string(),
    api_key_id: z.string(),
    note: z.string().optional(),
  }),
  'chain.getMachine': z.object({
    ok: z.literal(true),
    machine: Machine,
    role: z.union([z.literal('owner'), MachineRole]).nullable(),
  }),
  'chain.getState': z.object({
    ok: z.literal(true),
    slug: z.string(),
    status: MachineStatus,
    tick: Tick,
    state_hash: Hex64.nullable(),
    state_tick: Tick.nullable(),
    row_count: Count,
    head_seq: Count.nullable(),
    head_tick: Tick.nullable(),
    head_hash: Hex64.nullable(),
  }),
  'chain.appendEvent': WriteResult,
  'chain.appendState': WriteResult,
} satisfies Record<string, z.ZodType>;

/** The operations whose answers `callOp` types. */
export type TypedOperationId = keyof typeof operationOutputs;

/** What a successful call of `id` answers: its output schema's type when listed above, else `unknown`. */
export type OutputOf<Id extends string> = Id extends TypedOperationId ? z.output<(typeof operationOutputs)[Id]> : unknown;
