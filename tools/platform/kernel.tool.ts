import { z } from 'zod';
import { defineAction, defineTool } from '../../src/registry/types.js';
import { NoInput } from '../../src/registry/common-schemas.js';

export const kernelTool = defineTool({
  name: 'core_kernel',
  toolset: 'platform',
  title: 'Kernel',
  description:
    'The kernel: timing constants, core equations and the computation mandate. It also summarises the operator catalogue; every compute follows the mandate. Read the prompt first when an agent is about to compute, or the structured kernel when it needs the constants or equations as data.',
  actions: [
    defineAction({
      id: 'kernel.get',
      action: 'get',
      method: 'GET',
      path: '/api/kernel',
      auth: 'public',
      area: 'compute',
      summary:
        'Returns the kernel as data: timing and physical constants, core equations, operator counts by category, the solvers, the mandate steps, rules and limits.',
      input: NoInput,
      output: z.object({
        ok: z.literal(true),
        version: z.string().describe('Kernel version; changes when any part below changes'),
        constants: z
          .record(z.string(), z.number())
          .describe('Timing constants (tick_ms 777, pulse_hz 1.287, alpha) and key physical constants in SI (c, h, hbar, G, k_B, ...)'),
        equations: z.array(
          z.object({
            key: z.string(),
            name: z.string(),
            expression: z.string().describe('The equation as plain text'),
          }),
        ),
        operators: z.object({
          available: z.boolean().describe('False when this node has no operator registry loaded; counts are then 0'),
          note: z.string().nullable(),
          total: z.number().int().min(0),
          categories: z.array(z.object({ category: z.string(), name: z.string(), count: z.number().int().min(0) })),
        }),
        solvers: z
          .array(z.object({ id: z.string(), name: z.string(), domain: z.string(), method: z.string(), unit: z.string(), version: z.string() }))
          .describe('The sealed solvers; details with GET /api/solvers/{id}'),
        mandate: z.array(z.object({ step: z.number().int().min(1), title: z.string(), text: z.string() })).describe('The computation protocol, in order'),
        rules: z.array(z.object({ key: z.string(), rule: z.string() })).describe('Rules every compute and solve follows'),
        limits: z.record(z.string(), z.number()).describe('Size and count limits, by key'),
      }),
      idempotent: true,
      handler: async (_input, { services }) => services.kernel.get(),
    }),
    defineAction({
      id: 'kernel.getPrompt',
      action: 'prompt',
      method: 'GET',
      path: '/api/kernel/prompt',
      auth: 'public',
      area: 'compute',
      summary: 'Returns the kernel prompt: the computation mandate as plain text for an AI agent to follow.',
      input: NoInput,
      output: z.string(),
      response: { kind: 'raw', contentType: 'text/plain; charset=utf-8' },
      idempotent: true,
      handler: async (_input, { services }) => ({ contentType: 'text/plain; charset=utf-8', body: services.kernel.prompt() }),
    }),
  ],
});
