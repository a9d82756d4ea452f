import { z } from 'zod';
import { defineAction, defineTool } from '../../src/registry/types.js';
import { JsonObject, Slug, Tick } from '../../src/registry/common-schemas.js';
import { Device, MachineSlug, Threat } from './edge.schemas.js';

const DeviceId = z.string().min(1).max(128).describe('Device id from register_device');

export const threatFeedTool = defineTool({
  name: 'core_threat_feed',
  toolset: 'edge',
  title: 'Threat feed',
  description:
    'A machine\'s threat feed: register devices, submit device claims that are scored, audited and may fire the machine\'s event-triggered contracts, and read recent threats or the peer threats the machine follows. To follow another machine\'s threats, deploy a contract whose trigger is {"kind": "on_event", "machine": "<their slug>", "event": "av.threat.detected"}.',
  actions: [
    defineAction({
      id: 'threat.registerDevice',
      action: 'register_device',
      method: 'POST',
      path: '/api/av/devices',
      auth: 'bearer',
      role: 'admin',
      guards: 'slug',
      area: 'edge',
      summary: 'Registers a device on the machine; returns its device_id and the audit transition.',
      input: z.object({
        slug: MachineSlug,
        name: z.string().min(1).max(128).describe('Device name'),
        os: z.string().min(1).max(64).describe('Operating system, e.g. "linux"'),
      }),
      output: z.object({ ok: z.literal(true), device_id: z.string(), transition_id: z.string() }),
      handler: async ({ slug, name, os }, { services, caller }) => ({
        ok: true as const,
        ...(await services.threatFeed.registerDevice(slug, { name, os }, caller)),
      }),
    }),
    defineAction({
      id: 'threat.listDevices',
      action: 'list_devices',
      method: 'GET',
      path: '/api/av/devices',
      auth: 'bearer',
      role: 'viewer',
      guards: 'slug',
      area: 'edge',
      summary: 'Lists the registered devices.',
      input: z.object({ slug: MachineSlug }),
      output: z.object({ ok: z.literal(true), slug: Slug, devices: z.array(Device) }),
      idempotent: true,
      handler: async ({ slug }, { services, caller }) => ({ ok: true as const, slug, devices: await services.threatFeed.listDevices(slug, caller) }),
    }),
    defineAction({
      id: 'threat.submitClaim',
      action: 'claim',
      method: 'POST',
      path: '/api/av/claim',
      auth: 'bearer',
      role: 'operator',
      guards: 'slug',
      area: 'edge',
      summary:
        "Submits a device claim: scores it (s_forensic, noisy-OR of the scores), audits it, and at 0.7 or more publishes it as av.threat.detected, which fires the machine's listening contracts and notifies following machines.",
      input: z.object({
        slug: MachineSlug,
        device_id: DeviceId,
        claim_type: z
          .string()
          .regex(/^[a-z][a-z0-9_.]{0,63}$/)
          .describe('Kind of observation, e.g. "process_spawn"'),
        claim_payload: JsonObject.describe('What the device observed'),
        captured_at_tick: Tick.describe('Tick of the observation'),
        scores: z
          .array(
            z.object({
              score_id: z.string().min(1).max(32).describe('Name of the detector that produced the score'),
              value: z.number().min(0).max(1).describe('Normalised score, 0 (benign) to 1 (malicious)'),
            }),
          )
          .max(64)
          .optional()
          .describe('Detector scores'),
      }),
      output: z.object({
        ok: z.literal(true),
        audit_row_id: z.string(),
        tick: Tick,
        s_forensic: z.number().describe('Forensic score computed from the claim scores'),
        fired: z.boolean().describe('Whether the claim reached the threshold and was published as av.threat.detected (else av.claim.recorded)'),
        blockers: z.array(z.string()).describe('Why nothing fired, e.g. "composite_below_theta"'),
        contracts_fired: z.array(z.string()).describe("Ids of this machine's contracts that took a transition on the claim"),
        notified: z.array(Slug).describe('Machines following this one that were notified (those you may read)'),
        fingerprint: z.string(),
      }),
      handler: async (input, { services, caller }) => ({ ok: true as const, ...(await services.threatFeed.claim(input, caller)) }),
    }),
    defineAction({
      id: 'threat.listThreats',
      action: 'list_threats',
      method: 'GET',
      path: '/api/av/threats',
      auth: 'public',
      area: 'edge',
      summary: 'Lists recent threats; those claimed in a window such as 24h, newest first.',
      input: z.object({
        slug: MachineSlug,
        window: z
          .string()
          .regex(/^[1-9][0-9]{0,5}[smhd]$/, 'a window is a number followed by s, m, h or d, e.g. "24h"')
          .default('24h')
          .describe('How far back, e.g. "90m" or "7d"'),
      }),
      output: z.object({
        ok: z.literal(true),
        slug: Slug,
        window: z.string(),
        count: z.number().int().min(0),
        threats: z.array(Threat),
      }),
      idempotent: true,
      handler: async ({ slug, window }, { services, caller }) => ({
        ok: true as const,
        slug,
        window,
        ...(await services.threatFeed.threats(slug, window, caller)),
      }),
    }),
    defineAction({
      id: 'threat.getMeshFeed',
      action: 'mesh_feed',
      method: 'GET',
      path: '/api/av/mesh-feed',
      auth: 'public',
      area: 'edge',
      summary: 'Lists the peers whose threats it follows; a contract of this machine listens to their av.* events; with how often each fired and when last.',
      input: z.object({ slug: MachineSlug }),
      output: z.object({
        ok: z.literal(true),
        slug: Slug,
        subscriptions: z.array(
          z.object({
            publisher_slug: Slug,
            tag: z.string().describe('Event followed, e.g. "av.threat.detected"'),
            fire_count: z.number().int().min(0),
            last_fired_tick: Tick.nullable(),
          }),
        ),
      }),
      idempotent: true,
      handler: async ({ slug }, { services, caller }) => ({ ok: true as const, slug, subscriptions: await services.threatFeed.meshFeed(slug, caller) }),
    }),
  ],
});
