import { z } from 'zod';
import { defineAction, defineTool } from '../../src/registry/types.js';
import { Hex64, Tick } from '../../src/registry/common-schemas.js';
import { AuditRow, MachineSlug } from './machines.schemas.js';

export const blockTool = defineTool({
  name: 'core_block',
  toolset: 'machines',
  title: 'Chain at a tick',
  description:
    "Reads a machine's chain at one tick: the rows stamped exactly at that tick (get_block), or the chain as it stood at that tick, i.e. the head and state snapshot at or before it (get_at). Use it for point-in-time audits. Private machines need membership or a share token.",
  actions: [
    defineAction({
      id: 'chain.getBlock',
      action: 'get_block',
      method: 'GET',
      path: '/api/chain/{slug}/block',
      auth: 'public',
      area: 'chain',
      summary: 'Returns the rows stamped at the tick; not found (details.code NO_BLOCK_AT_TICK) when no row carries that tick.',
      input: z.object({ slug: MachineSlug, tick: Tick.describe('Tick to read') }),
      output: z.object({
        ok: z.literal(true),
        slug: z.string(),
        tick: Tick,
        rows: z.array(AuditRow).min(1).describe('Rows of that tick in chain order (at most 1,000)'),
        state_hash: Hex64.describe('state_hash of the last row of that tick'),
        truncated: z.boolean().describe('True when the tick holds more than 1,000 rows; read them all with explore'),
      }),
      idempotent: true,
      handler: async ({ slug, tick }, { services, caller }) => {
        const { machine } = await services.machines.readable(slug, caller);
        return { ok: true as const, slug, tick, ...(await services.chainReads.block(machine, tick)) };
      },
    }),
    defineAction({
      id: 'chain.getChainAt',
      action: 'get_at',
      method: 'GET',
      path: '/api/chain/{slug}/at',
      auth: 'public',
      area: 'chain',
      summary:
        'Returns the chain as it stood then: the newest row at or before it, the row count then and the latest state snapshot then; not found (NO_BLOCK_AT_TICK) before the first row.',
      input: z.object({ slug: MachineSlug, tick: Tick.describe('Tick to look back to') }),
      output: z.object({
        ok: z.literal(true),
        slug: z.string(),
        tick: Tick,
        head: AuditRow.describe('Newest row at or before the tick'),
        row_count: z.number().int().min(0).describe('Rows that existed at that tick'),
        state_hash: Hex64.nullable().describe('Latest state snapshot (append_state) at or before the tick'),
        state_tick: Tick.nullable(),
      }),
      idempotent: true,
      handler: async ({ slug, tick }, { services, caller }) => {
        const { machine } = await services.machines.readable(slug, caller);
        return { ok: true as const, slug, tick, ...(await services.chainReads.at(machine, tick)) };
      },
    }),
  ],
});
