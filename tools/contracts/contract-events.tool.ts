import { z } from 'zod';
import { defineAction, defineTool } from '../../src/registry/types.js';
import { IsoDate, JsonObject, Slug, Tick } from '../../src/registry/common-schemas.js';
import type { EventView } from '../../src/domain/contracts/contract-audit.service.js';
import { ContractId, EventName } from './contracts.schemas.js';
import { wireShape } from '../../src/registry/wire-shape.js';

export const contractEventsTool = defineTool({
  name: 'core_contract_events',
  toolset: 'contracts',
  title: 'Contract events',
  description: "Polls the machine's contract events (e.g. threshold_breached), by name and a since_tick watermark. For a live push use core_stream (events).",
  actions: [
    defineAction({
      id: 'contracts.listEvents',
      action: 'list',
      method: 'GET',
      path: '/api/chain/{slug}/events',
      auth: 'bearer',
      role: 'viewer',
      guards: 'slug',
      area: 'contracts',
      summary: 'Lists contract events of the machine after a tick watermark, oldest first, with the watermark to pass next time.',
      input: z.object({
        slug: Slug,
        name: EventName.optional().describe('Only events with this name'),
        since_tick: Tick.optional().describe('Only events after this tick (exclusive)'),
        limit: z.number().int().min(1).max(1000).default(100).describe('Page size'),
      }),
      output: z.object({
        ok: z.literal(true),
        events: z.array(
          wireShape<EventView>()(
            z.object({
              id: z.string(),
              name: EventName,
              contract_id: ContractId,
              tick_number: Tick,
              payload: JsonObject,
              created_at: IsoDate,
            }),
          ),
        ),
        next_since_tick: Tick.nullable().describe('Pass as since_tick to continue (a page ends on a whole tick); null when no events were returned'),
      }),
      idempotent: true,
      handler: async ({ slug, ...query }, { services }) => ({ ok: true as const, ...(await services.contracts.audit.events(slug, query)) }),
    }),
  ],
});
