import { z } from 'zod';
import { defineAction, defineTool } from '../../src/registry/types.js';
import { NoInput, Tick } from '../../src/registry/common-schemas.js';
import { Amount, Seat } from './economy.schemas.js';

/** Seat modes are defined by the node's policy, so they are checked against it rather than a fixed enum. */
const Mode = z
  .string()
  .regex(/^[a-z][a-z0-9_-]{0,31}$/, 'a mode is a lower-case name listed by the policy')
  .describe('Seat mode; one of the `modes` of the contribution policy');

const SeatId = z.string().min(1).max(128).describe('Seat to act on; default your only seat');

const SeatAnswer = z.object({ ok: z.literal(true), seat: Seat });

export const contributeTool = defineTool({
  name: 'core_contribute',
  toolset: 'economy',
  title: 'Contribution seats',
  description:
    'Contribution seats: bond envelopes (tally token rows) in place to hold a seat, keep it alive with heartbeats, choose its mode and release the bond; read the public policy and the anonymous census.',
  actions: [
    defineAction({
      id: 'contribute.getPolicy',
      action: 'policy',
      method: 'GET',
      path: '/api/contribute/policy',
      auth: 'public',
      area: 'economy',
      summary: 'Reads the public contribution policy: seat modes, minimum bond and the heartbeat window after which a seat lapses.',
      input: NoInput,
      output: z.object({
        ok: z.literal(true),
        modes: z.array(z.object({ mode: z.string(), description: z.string() })),
        min_bond_value: Amount.describe('Smallest total envelope value a bond must lock'),
        heartbeat_window_ticks: z.number().int().min(1).describe('A seat without a heartbeat for this many ticks lapses'),
        default_mode: z.string().describe('Mode of a seat opened without one'),
        max_seats_per_uid: z.number().int().min(1),
      }),
      idempotent: true,
      handler: async (_input, { services }) => services.contribute.policy(),
    }),
    defineAction({
      id: 'contribute.getCensus',
      action: 'census',
      method: 'GET',
      path: '/api/contribute/census',
      auth: 'public',
      area: 'economy',
      summary: 'Counts seats and the bonded value; counts only, never identities.',
      input: NoInput,
      output: z.object({
        ok: z.literal(true),
        tick: Tick,
        seats_active: z.number().int().min(0),
        seats_lapsed: z.number().int().min(0),
        by_mode: z.record(z.string(), z.number().int().min(0)).describe('Active seats per mode'),
        bonded_envelopes: z.number().int().min(0),
        bonded_value: Amount,
      }),
      idempotent: true,
      handler: async (_input, { services }) => services.contribute.census(),
    }),
    defineAction({
      id: 'contribute.getStatus',
      action: 'status',
      method: 'GET',
      path: '/api/contribute/status',
      auth: 'bearer',
      area: 'economy',
      summary: 'Reads your seat, or null. A seat has its mode, bond, last heartbeat and lapse tick.',
      input: NoInput,
      output: z.object({ ok: z.literal(true), seat: Seat.nullable() }),
      idempotent: true,
      handler: async (_input, { services, caller }) => services.contribute.status(caller.uid!),
    }),
    defineAction({
      id: 'contribute.bond',
      action: 'bond',
      method: 'POST',
      path: '/api/contribute/bond',
      auth: 'bearer',
      area: 'economy',
      summary: 'Bonds your envelopes to a seat; marks them immovable in place without changing their owner; opens a seat when the caller has none.',
      input: z.object({
        token_ids: z.array(z.string().min(1).max(128)).min(1).max(1000).describe('Your envelope ids'),
        mode: Mode.optional().describe('Mode of a new seat; default per policy'),
        seat_id: SeatId.optional(),
      }),
      output: SeatAnswer,
      handler: async (input, { services, caller }) => services.contribute.bond(caller.uid!, input),
    }),
    defineAction({
      id: 'contribute.heartbeat',
      action: 'heartbeat',
      method: 'POST',
      path: '/api/contribute/heartbeat',
      auth: 'bearer',
      area: 'economy',
      summary: 'Keeps your seat alive; it never changes the mode.',
      input: z.object({ seat_id: SeatId.optional() }),
      output: SeatAnswer,
      handler: async (input, { services, caller }) => services.contribute.heartbeat(caller.uid!, input.seat_id),
    }),
    defineAction({
      id: 'contribute.setMode',
      action: 'set_mode',
      method: 'POST',
      path: '/api/contribute/mode',
      auth: 'bearer',
      area: 'economy',
      summary: "Sets your seat's mode.",
      input: z.object({ mode: Mode, seat_id: SeatId.optional() }),
      output: SeatAnswer,
      idempotent: true,
      handler: async (input, { services, caller }) => services.contribute.setMode(caller.uid!, input.mode, input.seat_id),
    }),
    defineAction({
      id: 'contribute.release',
      action: 'release',
      method: 'POST',
      path: '/api/contribute/release',
      auth: 'bearer',
      area: 'economy',
      summary: 'Releases your seat and its envelopes; returns the ids freed.',
      input: z.object({ seat_id: SeatId.optional() }),
      output: z.object({
        ok: z.literal(true),
        seat_id: z.string(),
        released_token_ids: z.array(z.string()),
        tick: Tick,
      }),
      handler: async (input, { services, caller }) => services.contribute.release(caller.uid!, input.seat_id),
    }),
  ],
});
