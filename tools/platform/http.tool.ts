import { z } from 'zod';
import { defineAction, defineTool } from '../../src/registry/types.js';

export const httpTool = defineTool({
  name: 'core_http',
  toolset: 'platform',
  title: 'Call any endpoint',
  description:
    "Calls any operation of this server by method and path with your credentials; the input is checked against that operation's schema. A stream path collects events for a bounded time. Find paths with core_api_catalog.",
  actions: [
    defineAction({
      id: 'http.call',
      action: 'call',
      method: 'POST',
      path: '/api/http',
      auth: 'public',
      area: 'platform',
      summary: 'Runs one operation given its method, concrete path, query and JSON body, and returns what that operation returns.',
      input: z.object({
        method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']),
        path: z
          .string()
          .min(5)
          .max(2048)
          .regex(/^\/api\//, 'the path starts with /api/')
          .describe('Concrete path, e.g. /api/chain/my-machine/activity; a ?query part is allowed'),
        query: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.array(z.string())])).optional(),
        body: z.record(z.string(), z.unknown()).optional().describe('JSON body'),
        max_events: z.number().int().min(1).max(1000).default(20).describe('For stream paths: stop after this many events'),
        max_ms: z.number().int().min(100).max(60_000).default(5000).describe('For stream paths: stop after this many ms'),
      }),
      output: z.record(z.string(), z.unknown()).describe("The called operation's own answer"),
      response: { kind: 'relay' },
      openWorld: false,
      handler: async (input, ctx) => ctx.app.relay.call(input, ctx),
    }),
  ],
});
