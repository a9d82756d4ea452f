import { z } from 'zod';
import { defineAction, defineTool } from '../../src/registry/types.js';
import { IsoDate, NoInput, Tick } from '../../src/registry/common-schemas.js';

export const pulseTool = defineTool({
  name: 'core_pulse',
  toolset: 'platform',
  title: 'Pulse, health and status',
  description:
    "The node's tick clock and operational state. Read the pulse to learn the current tick before writing tick-based fields; check health, status or Prometheus metrics to see whether the node is ready.",
  actions: [
    defineAction({
      id: 'platform.getPulse',
      action: 'pulse',
      method: 'GET',
      path: '/api/pulse',
      auth: 'public',
      area: 'platform',
      summary: 'Reads the tick clock now: tick, phase within the tick, pulse rate, unix time and the modulation R(t).',
      input: NoInput,
      output: z.object({
        ok: z.literal(true),
        tick: Tick.describe('floor(unix_ms / 777)'),
        phase: z.number().min(0).max(1).describe('(unix_ms mod 777) / 777'),
        pulse_hz: z.literal(1.287),
        tick_ms: z.literal(777),
        unix_ms: z.number().int(),
        R_t: z.number().describe('R(t) = 1 + alpha * sin(2 * pi * pulse_hz * t)'),
        alpha: z.number().describe('Modulation coupling of R(t)'),
      }),
      idempotent: true,
      handler: async (_input, { services }) => services.platform.pulse(),
    }),
    defineAction({
      id: 'platform.getHealth',
      action: 'health',
      method: 'GET',
      path: '/api/health',
      auth: 'public',
      area: 'platform',
      summary: 'Reports whether the node is ready (storage open): status ok, starting or stopping, with each check.',
      input: NoInput,
      output: z.object({
        ok: z.literal(true),
        status: z.enum(['ok', 'starting', 'stopping']),
        checks: z
          .record(z.string(), z.object({ ok: z.boolean(), detail: z.string().optional() }))
          .describe('One entry per check, e.g. "storage", "scheduler"'),
      }),
      idempotent: true,
      handler: async (_input, { services }) => services.platform.health(),
    }),
    defineAction({
      id: 'platform.getStatus',
      action: 'status',
      method: 'GET',
      path: '/api/status',
      auth: 'public',
      area: 'platform',
      summary: "Reports the server's state: version, uptime, storage backend, current tick, start time and Node.js version.",
      input: NoInput,
      output: z.object({
        ok: z.literal(true),
        version: z.string(),
        uptime_s: z.number().min(0),
        backend: z.enum(['lowdb', 'postgres']),
        tick: Tick,
        started_at: IsoDate,
        node_version: z.string().describe('Node.js version, e.g. "v22.11.0"'),
      }),
      idempotent: true,
      handler: async (_input, { services }) => services.platform.status(),
    }),
    defineAction({
      id: 'platform.getMetrics',
      action: 'metrics',
      method: 'GET',
      path: '/api/metrics',
      auth: 'public',
      area: 'platform',
      summary: "Returns the node's Prometheus metrics.",
      input: NoInput,
      output: z.string(),
      produces: 'text/plain; version=0.0.4; charset=utf-8',
      idempotent: true,
      handler: async (_input, { services }) => services.platform.metrics(),
    }),
  ],
});
