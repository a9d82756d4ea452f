import { z } from 'zod';
import { defineAction, defineTool } from '../../src/registry/types.js';
import { Cursor, Limit, MachineRole, Tick } from '../../src/registry/common-schemas.js';
import type { ActiveMachine as ActiveMachineView } from '../../src/domain/chain/public-feed.service.js';
import { Machine, MachineAuditRow, MachineSlug, PublicMachine } from './machines.schemas.js';
import { wireShape } from '../../src/registry/wire-shape.js';

const ActiveMachine = wireShape<ActiveMachineView>()(
  z.object({
    slug: z.string(),
    display_name: z.string().nullable(),
    transition_count: z.number().int().min(0).describe('Audit rows written within the window'),
    last_tick: Tick.describe('Tick of the newest row within the window'),
  }),
);

export const machinesTool = defineTool({
  name: 'core_machines',
  toolset: 'machines',
  title: 'Find machines',
  description:
    'Finds state machines and reads their metadata: your own and public machines, one machine by slug, every public machine, the most active or newest public machines, the recent cross-machine feed and node-wide fleet counts. Private machines never appear in the public lists.',
  actions: [
    defineAction({
      id: 'chain.listMachines',
      action: 'list',
      method: 'GET',
      path: '/api/chain/state-machines',
      auth: 'public',
      area: 'chain',
      summary: 'Lists your machines and public ones; a page at a time, with status and chain head.',
      input: z.object({ limit: Limit.default(50), cursor: Cursor.optional() }),
      output: z.object({ ok: z.literal(true), machines: z.array(Machine), next_cursor: z.string().nullable() }),
      idempotent: true,
      handler: async (input, { services, caller }) => ({ ok: true as const, ...(await services.machines.list(caller, input)) }),
    }),
    defineAction({
      id: 'chain.getMachine',
      action: 'get',
      method: 'GET',
      path: '/api/chain/state-machines/{slug}',
      auth: 'public',
      area: 'chain',
      summary: 'Reads one machine and your role on it; a private machine the caller may not read is not found.',
      input: z.object({ slug: MachineSlug }),
      output: z.object({
        ok: z.literal(true),
        machine: Machine,
        role: z
          .union([z.literal('owner'), MachineRole])
          .nullable()
          .describe("The caller's role on the machine; null for none"),
      }),
      idempotent: true,
      handler: async ({ slug }, { services, caller }) => ({ ok: true as const, ...(await services.machines.get(slug, caller)) }),
    }),
    defineAction({
      id: 'chain.listPublicMachines',
      action: 'list_public',
      method: 'GET',
      path: '/api/chain/aggregate/list',
      auth: 'public',
      area: 'chain',
      summary: 'Lists public machines; safe for anonymous callers.',
      input: z.object({ limit: Limit.optional(), cursor: Cursor.optional() }),
      output: z.object({
        ok: z.literal(true),
        count: z.number().int().min(0).describe('Number of public machines on the node'),
        machines: z.array(PublicMachine),
        next_cursor: z.string().nullable(),
      }),
      idempotent: true,
      handler: async (page, { services }) => ({ ok: true as const, ...(await services.publicFeed.listPublic(page)) }),
    }),
    defineAction({
      id: 'chain.listActiveMachines',
      action: 'active',
      method: 'GET',
      path: '/api/chain/active',
      auth: 'public',
      area: 'chain',
      summary: 'Ranks public machines by recent rows; over the last window_ticks ticks (default 60, about 47 s).',
      input: z.object({
        window_ticks: z.number().int().min(1).max(111_197).default(60).describe('Window length in ticks'),
        limit: Limit.default(10),
      }),
      output: z.object({
        ok: z.literal(true),
        window_ticks: z.number().int(),
        since_tick: Tick.describe('First tick of the window'),
        machines: z.array(ActiveMachine),
      }),
      idempotent: true,
      handler: async ({ window_ticks, limit }, { services }) => ({
        ok: true as const,
        window_ticks,
        ...(await services.publicFeed.active(window_ticks, limit)),
      }),
    }),
    defineAction({
      id: 'chain.listNewestMachines',
      action: 'newest',
      method: 'GET',
      path: '/api/chain/newest',
      auth: 'public',
      area: 'chain',
      summary: 'Lists the newest public machines.',
      input: z.object({ limit: Limit.default(20) }),
      output: z.object({ ok: z.literal(true), machines: z.array(PublicMachine) }),
      idempotent: true,
      handler: async ({ limit }, { services }) => ({ ok: true as const, machines: await services.publicFeed.newest(limit) }),
    }),
    defineAction({
      id: 'chain.listRecentRows',
      action: 'recent',
      method: 'GET',
      path: '/api/chain/recent',
      auth: 'public',
      area: 'chain',
      summary: 'Lists the newest rows of all public machines; newest first, optionally of one transition type; cached for one tick.',
      input: z.object({
        limit: Limit.default(50),
        type: z.string().min(1).max(64).optional().describe('Only rows of this type, e.g. "event"'),
      }),
      output: z.object({ ok: z.literal(true), tick: Tick.describe('Tick the answer was computed at'), rows: z.array(MachineAuditRow) }),
      idempotent: true,
      handler: async ({ limit, type }, { services }) => ({ ok: true as const, ...(await services.publicFeed.recent(limit, type)) }),
    }),
    defineAction({
      id: 'chain.getFleet',
      action: 'fleet',
      method: 'GET',
      path: '/api/chain/fleet',
      auth: 'public',
      area: 'chain',
      summary: 'Counts machines and audit rows node-wide; counts only, no identities.',
      input: z.object({}),
      output: z.object({
        ok: z.literal(true),
        tick: Tick,
        machines_total: z.number().int().min(0),
        machines_public: z.number().int().min(0),
        by_status: z.object({
          active: z.number().int().min(0),
          paused: z.number().int().min(0),
          archived: z.number().int().min(0),
        }),
        rows_total: z.number().int().min(0).describe('Audit rows across all machines'),
        active_last_60_ticks: z.number().int().min(0).describe('Machines that wrote at least one row in the last 60 ticks'),
      }),
      idempotent: true,
      handler: async (_input, { services }) => ({ ok: true as const, ...(await services.publicFeed.fleet()) }),
    }),
  ],
});
