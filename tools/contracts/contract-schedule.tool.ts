import { z } from 'zod';
import { defineAction, defineTool } from '../../src/registry/types.js';
import { Slug, Tick } from '../../src/registry/common-schemas.js';
import { ContractId, ContractStatus, PredictedFire, StateName, TransitionRow } from './contracts.schemas.js';

export const contractScheduleTool = defineTool({
  name: 'core_contract_schedule',
  toolset: 'contracts',
  title: 'Contract schedule',
  description:
    "Owner-only, free views of a contract's schedule: predict its next fires (one_shot, recurring and cron triggers), or read a cheap live preview meant to be polled about every 5 ticks.",
  actions: [
    defineAction({
      id: 'contracts.predictNextFires',
      action: 'next_fires',
      method: 'GET',
      path: '/api/chain/{slug}/contracts/{id}/next-fires',
      auth: 'bearer',
      role: 'owner',
      guards: 'slug',
      area: 'contracts',
      summary: 'Predicts the next N fires of the contract; event-triggered contracts return an empty list and a note.',
      input: z.object({
        slug: Slug,
        id: ContractId,
        count: z.number().int().min(1).max(100).default(10).describe('How many fires to predict'),
      }),
      output: z.object({
        ok: z.literal(true),
        contract_id: ContractId,
        fires: z.array(PredictedFire),
        note: z.string().nullable().describe('Why the list is short or empty, e.g. for event-triggered or paused contracts'),
      }),
      idempotent: true,
      handler: async ({ slug, id, count }, { services }) => {
        const record = await services.contracts.core.find(slug, id);
        return { ok: true as const, contract_id: id, ...(await services.contracts.planning.nextFires(record, count)) };
      },
    }),
    defineAction({
      id: 'contracts.previewContract',
      action: 'preview',
      method: 'GET',
      path: '/api/chain/{slug}/contracts/{id}/preview',
      auth: 'bearer',
      role: 'owner',
      guards: 'slug',
      area: 'contracts',
      summary: 'Reads a cheap live summary for polling: state, status, fire count, next fire, last transition.',
      input: z.object({ slug: Slug, id: ContractId }),
      output: z.object({
        ok: z.literal(true),
        contract_id: ContractId,
        current_state: StateName,
        status: ContractStatus,
        current_version_no: z.number().int().min(1),
        fire_count: z.number().int().min(0),
        next_fire: Tick.nullable(),
        last_transition: TransitionRow.nullable(),
        tick_number: Tick.describe('Tick the preview was taken at'),
      }),
      idempotent: true,
      handler: async ({ slug, id }, { services }) => {
        const preview = await services.contracts.planning.preview(slug, id);
        return { ok: true as const, ...preview, last_transition: preview.last_transition as z.infer<typeof TransitionRow> | null };
      },
    }),
  ],
});
