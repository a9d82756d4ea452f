import { z } from 'zod';
import { defineAction, defineTool } from '../../src/registry/types.js';
import { Id, JsonObject, Tick } from '../../src/registry/common-schemas.js';
import type { EventView } from '../../src/domain/contracts/contract-audit.service.js';
import { AuditRow, MachineAuditRow, MachineSlug, StreamBounds } from './machines.schemas.js';
import { wireShape } from '../../src/registry/wire-shape.js';

const Heartbeat = z.object({ tick: Tick }).describe('Keep-alive, sent every 25 s');

const ReplaySkipped = z
  .object({ slug: z.string(), from_seq: z.number().int().min(0), to_seq: z.number().int().min(0), hint: z.string() })
  .describe('Rows too far behind to replay on resume; read them with explore');

/** The same view of an event as the events listing: the stream pushes what `contract_events` pages through. */
const ContractEvent = wireShape<EventView>()(
  z.object({
    id: z.string(),
    contract_id: z.string(),
    name: z.string().describe('Event name, e.g. "threshold_breached"'),
    payload: JsonObject,
    tick_number: Tick,
    created_at: z.string(),
  }),
);

const Transition = z.object({
  id: z.string(),
  contract_id: z.string(),
  from_state: z.string(),
  to_state: z.string(),
  operator: z.string().nullable(),
  proof_digest: z.string().nullable(),
  tick: Tick,
  created_at: z.string(),
});

export const streamTool = defineTool({
  name: 'core_stream',
  toolset: 'machines',
  title: 'Live streams',
  description:
    "Collects a live event stream for up to max_events events or max_ms ms: a machine's audit rows, public machines' rows, a machine's contract events (owner only), or one contract's transitions. Pass the last id back as last_event_id to continue without gaps. A stream ends with access.revoked when your access is revoked.",
  actions: [
    defineAction({
      id: 'chain.streamExplore',
      action: 'explore',
      method: 'GET',
      path: '/api/chain/{slug}/explore/sse',
      auth: 'public',
      area: 'chain',
      summary: 'New audit rows of the machine; private machines need membership or a share token.',
      input: z.object({ slug: MachineSlug, ...StreamBounds }),
      output: z.object({
        id: z.string().describe('Event id: the row seq'),
        event: z
          .string()
          .describe(
            '"audit.appended"; "replay.skipped" when more than 10,000 rows were missed (read those with explore); "access.revoked" (data: code, message) as the last event when your right to read ends',
          ),
        data: z.union([AuditRow, ReplaySkipped, Heartbeat]),
      }),
      response: { kind: 'stream' },
      idempotent: true,
      handler: async ({ slug }, { services, caller }) => {
        const { machine, role } = await services.machines.readable(slug, caller);
        // A reader who holds no role sees the machine only while it is public.
        return services.streams.explore(machine, { publicOnly: role === 'none' && machine.is_public });
      },
    }),
    defineAction({
      id: 'chain.streamAggregate',
      action: 'aggregate',
      method: 'GET',
      path: '/api/chain/aggregate/sse',
      auth: 'public',
      area: 'chain',
      summary: 'New audit rows of all public machines; rows of private machines never appear.',
      input: z.object({ ...StreamBounds }),
      output: z.object({
        id: z.string().describe('Event id: "<slug>:<seq>"; resuming covers the last 4,096 public rows of this server process'),
        event: z.string().describe('"audit.appended"'),
        data: z.union([MachineAuditRow, Heartbeat]),
      }),
      response: { kind: 'stream', feed: 'public' },
      idempotent: true,
      handler: async (_input, { services }) => services.streams.aggregate(),
    }),
    defineAction({
      id: 'chain.streamContractEvents',
      action: 'events',
      method: 'GET',
      path: '/api/chain/{slug}/events/stream',
      auth: 'bearer',
      role: 'owner',
      guards: 'slug',
      area: 'chain',
      summary: 'Contract events of the machine (`event.emitted`); with a heartbeat every 25 s; owner only.',
      input: z.object({ slug: MachineSlug, ...StreamBounds }),
      output: z.object({
        id: z.string().describe('Event id: the contract event id'),
        event: z.string().describe('"event.emitted", "heartbeat", or "access.revoked" (last event) when your right to read ends'),
        data: z.union([ContractEvent, Heartbeat]),
      }),
      response: { kind: 'stream' },
      idempotent: true,
      handler: async ({ slug }, { services }) => services.contracts.streams.events(slug),
    }),
    defineAction({
      id: 'chain.streamContractTransitions',
      action: 'contract_transitions',
      method: 'GET',
      path: '/api/chain/{slug}/contracts/{id}/transitions/stream',
      auth: 'bearer',
      role: 'viewer',
      guards: 'slug',
      area: 'chain',
      summary: 'Successful transitions of one contract. Sent as `contract.transitioned` events as they happen.',
      input: z.object({ slug: MachineSlug, id: Id.describe('Contract id'), ...StreamBounds }),
      output: z.object({
        id: z.string().describe('Event id: the transition id'),
        event: z.string().describe('"contract.transitioned", "heartbeat", or "access.revoked" (last event) when your right to read ends'),
        data: z.union([Transition, Heartbeat]),
      }),
      response: { kind: 'stream' },
      idempotent: true,
      handler: async ({ slug, id }, { services }) => services.contracts.streams.transitions(await services.contracts.core.find(slug, id)),
    }),
  ],
});
