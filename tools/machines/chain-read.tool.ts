import { z } from 'zod';
import { defineAction, defineTool } from '../../src/registry/types.js';
import { Hex64, MachineStatus, Tick } from '../../src/registry/common-schemas.js';
import { MachineSlug } from './machines.schemas.js';

const Count = z.number().int().min(0);
const readGate = 'private machines need membership or a share token';

export const chainReadTool = defineTool({
  name: 'core_chain_read',
  toolset: 'machines',
  title: 'Read machine state',
  description:
    "Reads summaries of one machine's chain: latest state and head, statistics, which row types it emitted, its sources, integrity counters and an activity sparkline. Public machines are readable by anyone; private ones by members or with a share token.",
  actions: [
    defineAction({
      id: 'chain.getState',
      action: 'get_state',
      method: 'GET',
      path: '/api/chain/{slug}/state',
      auth: 'public',
      area: 'chain',
      summary: `Returns the latest state hash and chain head (seq, tick, hash); ${readGate}.`,
      input: z.object({ slug: MachineSlug }),
      output: z.object({
        ok: z.literal(true),
        slug: z.string(),
        status: MachineStatus,
        tick: Tick.describe('Current tick'),
        state_hash: Hex64.nullable().describe('Latest state snapshot (append_state); null when none was recorded'),
        state_tick: Tick.nullable(),
        row_count: Count,
        head_seq: Count.nullable(),
        head_tick: Tick.nullable(),
        head_hash: Hex64.nullable().describe('state_hash of the newest audit row'),
      }),
      idempotent: true,
      handler: async ({ slug }, { services, caller }) => {
        const { machine } = await services.machines.readable(slug, caller);
        return { ok: true as const, slug, ...(await services.chainReads.state(machine)) };
      },
    }),
    defineAction({
      id: 'chain.getStats',
      action: 'get_stats',
      method: 'GET',
      path: '/api/chain/{slug}/stats',
      auth: 'public',
      area: 'chain',
      summary: `Returns row counts; in total, per type and over the last 60 ticks, with first and last row ticks; ${readGate}.`,
      input: z.object({ slug: MachineSlug }),
      output: z.object({
        ok: z.literal(true),
        slug: z.string(),
        genesis_tick: Tick,
        row_count: Count,
        first_tick: Tick.nullable(),
        last_tick: Tick.nullable(),
        rows_last_60_ticks: Count,
        by_type: z.record(z.string(), Count).describe('Row count per transition type'),
        contracts: Count.describe('Contracts deployed on the machine and not killed'),
      }),
      idempotent: true,
      handler: async ({ slug }, { services, caller }) => {
        const { machine } = await services.machines.readable(slug, caller);
        return { ok: true as const, slug, ...(await services.chainReads.stats(machine)) };
      },
    }),
    defineAction({
      id: 'chain.getCoverage',
      action: 'get_coverage',
      method: 'GET',
      path: '/api/chain/{slug}/coverage',
      auth: 'public',
      area: 'chain',
      summary: `Lists the row types written; grouped by family, with counts and first and last ticks; ${readGate}.`,
      input: z.object({ slug: MachineSlug }),
      output: z.object({
        ok: z.literal(true),
        slug: z.string(),
        groups: z.array(
          z.object({
            group: z.string().describe('Family of types, e.g. "event", "contract", "app", "admin"'),
            types: z.array(z.object({ type: z.string(), count: Count, first_tick: Tick, last_tick: Tick })),
          }),
        ),
      }),
      idempotent: true,
      handler: async ({ slug }, { services, caller }) => {
        const { machine } = await services.machines.readable(slug, caller);
        return { ok: true as const, slug, groups: await services.chainReads.coverage(machine) };
      },
    }),
    defineAction({
      id: 'chain.listSources',
      action: 'list_sources',
      method: 'GET',
      path: '/api/chain/{slug}/sources',
      auth: 'public',
      area: 'chain',
      summary: `Lists who wrote rows (keys, devices, apps, contracts); with events seen, events stamped and liveness; ${readGate}.`,
      input: z.object({ slug: MachineSlug }),
      output: z.object({
        ok: z.literal(true),
        slug: z.string(),
        sources: z.array(
          z.object({
            source_id: z.string(),
            display_name: z.string(),
            source_type: z.string().describe('e.g. "api_key", "device", "app", "contract"'),
            events_seen: Count,
            events_stamped: Count.describe('Events that made it into the chain'),
            alive: z.boolean().describe('Wrote within the liveness window'),
            last_tick: Tick.nullable(),
          }),
        ),
      }),
      idempotent: true,
      handler: async ({ slug }, { services, caller }) => {
        const { machine } = await services.machines.readable(slug, caller);
        return { ok: true as const, slug, sources: await services.chainReads.sources(machine) };
      },
    }),
    defineAction({
      id: 'chain.getAwarenessStatus',
      action: 'awareness_status',
      method: 'GET',
      path: '/api/chain/{slug}/awareness/status',
      auth: 'public',
      area: 'chain',
      summary: `Returns aggregate integrity counters per origin (rows, verified links, broken links, last tick); ${readGate}.`,
      input: z.object({ slug: MachineSlug }),
      output: z.object({
        ok: z.literal(true),
        slug: z.string(),
        tick: Tick,
        origins: z.array(
          z.object({
            origin: z.string().describe('Origin of the rows, "<node origin>:<slug>"'),
            rows: Count,
            verified: Count.describe('Rows whose hash link checked out'),
            broken: Count.describe('Rows whose hash link did not'),
            last_tick: Tick.nullable(),
          }),
        ),
      }),
      idempotent: true,
      handler: async ({ slug }, { services, caller }) => {
        const { machine } = await services.machines.readable(slug, caller);
        return { ok: true as const, slug, tick: services.clock.tick(), origins: await services.chainReads.awareness(machine) };
      },
    }),
    defineAction({
      id: 'chain.getAnalytics',
      action: 'analytics',
      method: 'GET',
      path: '/api/chain/{slug}/analytics',
      auth: 'public',
      area: 'chain',
      summary: `Returns a sparkline: audit-row counts in equal buckets over the last window_ticks ticks, oldest first; ${readGate}.`,
      aliases: { windowTicks: 'window_ticks' },
      input: z.object({
        slug: MachineSlug,
        buckets: z.number().int().min(1).max(240).default(24).describe('Number of buckets'),
        window_ticks: z.number().int().min(1).max(1_000_000).default(4633).describe('Window length in ticks'),
      }),
      output: z.object({
        ok: z.literal(true),
        slug: z.string(),
        window_ticks: z.number().int(),
        buckets: z.number().int(),
        bucket_ticks: z.number().describe('Ticks per bucket'),
        from_tick: Tick,
        to_tick: Tick,
        counts: z.array(Count).describe('One count per bucket, oldest first'),
      }),
      idempotent: true,
      handler: async ({ slug, buckets, window_ticks }, { services, caller }) => {
        const { machine } = await services.machines.readable(slug, caller);
        return { ok: true as const, slug, window_ticks, buckets, ...(await services.chainReads.analytics(machine, buckets, window_ticks)) };
      },
    }),
  ],
});
