import { z } from 'zod';
import { defineAction, defineTool } from '../../src/registry/types.js';
import { Hex64, JsonObject, Slug, Tick } from '../../src/registry/common-schemas.js';
import { MachineSlug, WriteResult } from './machines.schemas.js';

const RowType = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9_.:-]+$/, 'letters, digits, "_", ".", ":" or "-"');

export const chainWriteTool = defineTool({
  name: 'core_chain_write',
  toolset: 'machines',
  title: 'Write to a machine chain',
  description:
    "Appends one hash-chained row to a machine's audit log: a generic event, a state-hash snapshot, a file hash, a connection open/close, or an owner-only mini-app event; rows carry only payload digests. Each append returns the new row's tick, transition_id, seq and state_hash.",
  actions: [
    defineAction({
      id: 'chain.appendEvent',
      action: 'append_event',
      method: 'POST',
      path: '/api/chain/{slug}/event',
      auth: 'bearer',
      role: 'operator',
      guards: 'slug',
      area: 'chain',
      summary:
        'Appends a typed event row; send either a JSON payload (the row carries the SHA-256 of its canonical JSON, never the payload) or a precomputed 64-hex hash.',
      input: z.object({
        slug: MachineSlug,
        type: RowType.default('event').describe('Your kind of row, e.g. "reading"'),
        payload: JsonObject.optional().describe('Event data; the row keeps only its sha256. Omit when sending hash'),
        hash: Hex64.optional().describe('SHA-256 of the event data (64 hex); omit when sending payload'),
      }),
      output: WriteResult,
      handler: async ({ slug, ...event }, { services, caller, machine }) => {
        return services.chain.recordEvent(machine, caller, event);
      },
    }),
    defineAction({
      id: 'chain.appendState',
      action: 'append_state',
      method: 'POST',
      path: '/api/chain/{slug}/state',
      auth: 'bearer',
      role: 'operator',
      guards: 'slug',
      area: 'chain',
      summary: 'Records a hash of your own state; it becomes what the state read returns.',
      input: z.object({ slug: MachineSlug, state_hash: Hex64.describe('SHA-256 of the state, 64 hex') }),
      output: WriteResult,
      handler: async ({ state_hash }, { services, caller, machine }) => {
        return services.chainWrites.appendState(machine, caller, state_hash);
      },
    }),
    defineAction({
      id: 'chain.appendFile',
      action: 'append_file',
      method: 'POST',
      path: '/api/chain/{slug}/file',
      auth: 'bearer',
      role: 'operator',
      guards: 'slug',
      area: 'chain',
      summary: "Records a file's hash and size; the file itself is not uploaded.",
      input: z.object({
        slug: MachineSlug,
        name: z.string().min(1).max(1024).describe('File name or path'),
        sha256: Hex64.describe('SHA-256 of the file content'),
        size: z.number().int().min(0).describe('Size in bytes'),
        content_type: z.string().max(255).optional().describe('MIME type, e.g. "application/pdf"'),
      }),
      output: WriteResult,
      handler: async ({ slug, ...file }, { services, caller, machine }) => {
        return services.chainWrites.appendFile(machine, caller, file);
      },
    }),
    defineAction({
      id: 'chain.appendConnection',
      action: 'append_connection',
      method: 'POST',
      path: '/api/chain/{slug}/connection',
      auth: 'bearer',
      role: 'operator',
      guards: 'slug',
      area: 'chain',
      summary: 'Records a network connection opening or closing; the peer is identified only by a hash.',
      input: z.object({
        slug: MachineSlug,
        direction: z.enum(['inbound', 'outbound']).describe('Who opened the connection'),
        peer_hash: z.string().min(1).max(128).describe('Hash of the peer, never a raw address'),
        protocol: z.string().min(1).max(32).describe('e.g. "https"'),
        state: z.enum(['open', 'close']).describe('Whether the connection opened or closed'),
      }),
      output: WriteResult,
      handler: async ({ slug, ...connection }, { services, caller, machine }) => {
        return services.chainWrites.appendConnection(machine, caller, connection);
      },
    }),
    defineAction({
      id: 'chain.appendAppEvent',
      action: 'append_app_event',
      method: 'POST',
      path: '/api/chain/{slug}/app-event',
      auth: 'bearer',
      role: 'owner',
      guards: 'slug',
      area: 'chain',
      summary: 'Appends a row from one of your mini-apps; owner only.',
      input: z.object({
        slug: MachineSlug,
        app: z
          .string()
          .min(1)
          .max(64)
          .regex(/^[a-z0-9][a-z0-9_.-]*$/, 'lowercase letters, digits, "_", "." or "-"')
          .describe('Id of the mini-app'),
        type: RowType.default('app_event').describe('Event type inside the app'),
        payload: JsonObject.optional().describe('Event data; the row carries only its SHA-256'),
      }),
      output: WriteResult,
      handler: async ({ app, type, payload }, { services, caller, machine }) => {
        return services.chainWrites.appendAppEvent(machine, caller, app, type, payload ?? {});
      },
    }),
    defineAction({
      id: 'chain.submitTx',
      action: 'submit_tx',
      method: 'POST',
      path: '/api/chain/{slug}/tx/submit',
      auth: 'bearer',
      area: 'chain',
      summary: 'Explains that transitions go through contracts (POST /api/chain/{slug}/contracts/{id}/transition); writes nothing.',
      input: z.object({
        slug: MachineSlug,
        tx: JsonObject.optional().describe('Ignored. Accepted so that old clients get the explanation instead of an error'),
      }),
      output: z.object({
        ok: z.literal(true),
        accepted: z.literal(false),
        message: z.string(),
        use: z.string().describe('Path template to use instead'),
      }),
      idempotent: true,
      handler: async ({ slug }, { services, caller }) => {
        await services.machines.readable(slug, caller);
        return {
          ok: true as const,
          accepted: false as const,
          message: `Nothing was written: state transitions of "${slug}" go through a contract; deploy one, then submit to POST /api/chain/${slug}/contracts/{id}/transition`,
          use: '/api/chain/{slug}/contracts/{id}/transition',
        };
      },
    }),
    defineAction({
      id: 'chain.logRejection',
      action: 'log_rejection',
      method: 'POST',
      path: '/api/chain/rejection-log',
      auth: 'public',
      area: 'chain',
      summary:
        "Logs a submission rejected before any chain; rejected by a client library, proxy or validator, never written in a machine's chain; without a key at most 10 rows a minute per client address, 60 per key.",
      input: z.object({
        slug: Slug.optional().describe('Machine the submission was meant for, when known'),
        reason: z.string().min(1).max(500).describe('Why it was rejected'),
        code: z.string().max(64).optional().describe('Machine-readable rejection code'),
        payload_digest: Hex64.optional().describe('SHA-256 of the rejected payload'),
        source: z.string().max(128).optional().describe('Client or device that rejected it'),
      }),
      output: z.object({ ok: z.literal(true), id: z.string(), tick: Tick }),
      handler: async (input, { services, caller, clientIp }) => ({ ok: true as const, ...(await services.chainWrites.logRejection(caller, input, clientIp)) }),
    }),
  ],
});
