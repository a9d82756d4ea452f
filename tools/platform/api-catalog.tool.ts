import { z } from 'zod';
import { defineAction, defineTool } from '../../src/registry/types.js';

const Entry = z.object({
  id: z.string().describe('Operation id'),
  method: z.string(),
  path: z.string(),
  auth: z.string().describe('"bearer": without a key it answers 401 (a role may be needed too); "public": no key needed'),
  role: z.string().nullable().describe('Minimum role on the machine named by slug, if any'),
  summary: z.string(),
  tool: z.string().nullable().describe('The MCP tool that serves this operation'),
  action: z.string().nullable().describe('The value of "action" to pass to that tool'),
  toolset: z.string().nullable(),
  area: z.string(),
  tags: z.array(z.string()),
  stream: z.boolean(),
  produces: z.string(),
  available: z.boolean().describe('False while the operation answers 501 NOT_IMPLEMENTED'),
  input_schema: z.record(z.string(), z.unknown()).optional().describe('JSON Schema of the input (path params, query and body as one object)'),
});

export const apiCatalogTool = defineTool({
  name: 'core_api_catalog',
  toolset: 'platform',
  title: 'API catalog',
  description:
    'The map of every operation of this server: called with no arguments it gives the toolsets and how to search; search by text, tag (toolset, area or tool name), method or path, and get method, path, auth, summary, the MCP tool and action that serve it, and the JSON Schema of its input. Use it to find the right tool, or the path to give core_http.',
  defaultAction: 'map',
  actions: [
    defineAction({
      id: 'catalog.getMap',
      action: 'map',
      method: 'GET',
      path: '/api/endpoints/map',
      auth: 'public',
      area: 'platform',
      summary: 'Returns the map of this server: its toolsets with their tools and operation counts, and how to search the catalogue.',
      input: z.object({}),
      output: z.object({
        ok: z.literal(true),
        version: z.string(),
        tools: z.number().int().describe('Tools this server has'),
        operations: z.number().int().describe('Operations, each an action of one tool and a REST route'),
        toolsets: z.array(z.object({ toolset: z.string(), operations: z.number().int(), tools: z.array(z.string()) })),
        how_to_search: z.array(z.string()).describe('Example calls of this tool'),
      }),
      idempotent: true,
      handler: async (_input, { app }) => app.description.endpointMap(),
    }),
    defineAction({
      id: 'catalog.searchEndpoints',
      action: 'search',
      method: 'GET',
      path: '/api/endpoints',
      auth: 'public',
      area: 'platform',
      summary: 'Lists the route registry of the node; filtered by text, tag, method or path, optionally with the JSON Schema of each input.',
      input: z.object({
        q: z.string().max(200).optional().describe('Words that must all appear in id, path, summary or tool'),
        tag: z.string().max(64).optional().describe('A toolset (machines), area (chain) or tool name (core_chain_write)'),
        method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']).optional(),
        path: z.string().max(300).optional().describe('A path prefix (/api/chain) or a concrete path (/api/chain/demo/event)'),
        include_schemas: z.boolean().default(false).describe("Include each input's JSON Schema"),
      }),
      output: z.object({ ok: z.literal(true), count: z.number().int(), version: z.string(), endpoints: z.array(Entry) }),
      idempotent: true,
      handler: async (input, { app }) => app.description.searchEndpoints(input),
    }),
    defineAction({
      id: 'catalog.getOpenapi',
      action: 'openapi',
      method: 'GET',
      path: '/api/openapi.json',
      auth: 'public',
      area: 'platform',
      summary: 'Returns the OpenAPI 3.1 document. Generated from the same registry as the MCP tools.',
      input: z.object({}),
      output: z
        .object({ openapi: z.literal('3.1.0'), info: z.object({ title: z.string(), version: z.string() }).loose(), paths: z.record(z.string(), z.unknown()) })
        .loose(),
      idempotent: true,
      handler: async (_input, { app }) => app.description.openapi(),
    }),
  ],
});
