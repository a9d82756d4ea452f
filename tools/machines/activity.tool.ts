import { z } from 'zod';
import { defineAction, defineTool } from '../../src/registry/types.js';
import { Cursor, Limit, Tick } from '../../src/registry/common-schemas.js';
import { AuditRow, MachineSlug } from './machines.schemas.js';

export const activityTool = defineTool({
  name: 'core_activity',
  toolset: 'machines',
  title: 'Machine activity',
  description:
    "Reads a machine's audit rows: a newest-first feed filterable by transition type (activity), or every row within a tick range in chain order (explore). Public machines are readable by anyone; private ones by members or with a share token.",
  actions: [
    defineAction({
      id: 'chain.listActivity',
      action: 'activity',
      method: 'GET',
      path: '/api/chain/{slug}/activity',
      auth: 'public',
      area: 'chain',
      summary: 'Lists audit rows, newest first; a page at a time, optionally only one transition type.',
      input: z.object({
        slug: MachineSlug,
        type: z.string().min(1).max(64).optional().describe('Only rows of this type, e.g. "event"'),
        limit: Limit.default(50),
        cursor: Cursor.optional(),
      }),
      output: z.object({
        ok: z.literal(true),
        slug: z.string(),
        rows: z.array(AuditRow),
        next_cursor: z.string().nullable().describe('Cursor for older rows; null at the genesis end'),
      }),
      idempotent: true,
      handler: async ({ slug, ...query }, { services, caller }) => {
        const { machine } = await services.machines.readable(slug, caller);
        return { ok: true as const, slug, ...(await services.chain.activity(machine, query)) };
      },
    }),
    defineAction({
      id: 'chain.exploreRange',
      action: 'explore',
      method: 'GET',
      path: '/api/chain/{slug}/explore',
      auth: 'public',
      area: 'chain',
      summary: 'Returns the rows between two ticks (inclusive). In chain order, oldest first, with the response format version.',
      input: z.object({
        slug: MachineSlug,
        from: Tick.optional().describe('First tick, inclusive; defaults to the genesis tick'),
        to: Tick.optional().describe('Last tick, inclusive; defaults to now'),
        limit: Limit.default(200),
        cursor: Cursor.optional().describe('next_cursor of a previous page, to continue inside the same range'),
      }),
      output: z.object({
        ok: z.literal(true),
        version: z.string().describe('Format version of this explorer response'),
        slug: z.string(),
        from: Tick,
        to: Tick,
        rows: z.array(AuditRow),
        truncated: z.boolean().describe('More rows exist in the range; call again with cursor = next_cursor'),
        next_from: Tick.nullable(),
        next_cursor: z.string().nullable().describe('Cursor continuing exactly after the last row, even inside one busy tick'),
      }),
      idempotent: true,
      handler: async ({ slug, ...query }, { services, caller }) => {
        const { machine } = await services.machines.readable(slug, caller);
        return { ok: true as const, slug, ...(await services.chainReads.explore(machine, query)) };
      },
    }),
  ],
});
