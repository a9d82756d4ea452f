import { API_VERSION } from '../config.js';
import { ERROR_CODES, STATUS_OF } from '../errors.js';
import type { JsonSchema } from './json-schema.js';
import type { OpenApiDocument } from './description-shapes.js';
import { TRANSPORT_ROUTES, type Operation, type Registry } from './registry.js';
import { tagsOf } from './catalog.js';
import { keyRequired } from './auth-rule.js';
import { contentTypeOf, SOLVERS_TAG } from './types.js';

/** The OpenAPI 3.1 description of every operation, derived from the registry. */
export function openApiOf(registry: Registry): OpenApiDocument {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of registry.operations) {
    (paths[op.path] ??= {})[op.method.toLowerCase()] = operationObject(op);
  }
  for (const r of TRANSPORT_ROUTES) {
    (paths[r.path] ??= {})[r.method.toLowerCase()] = {
      operationId: 'mcp.rpc',
      summary: r.summary,
      tags: ['platform', 'mcp'],
      security: [{}, { bearerAuth: [] }, { apiKeyAuth: [] }],
      requestBody: { required: true, content: { 'application/json': { schema: { type: 'object' } } } },
      responses: {
        '200': { description: 'JSON-RPC response', content: { 'application/json': { schema: { type: 'object' } } } },
        '202': { description: 'Notification or response accepted' },
        '400': { description: 'Malformed JSON-RPC message or batch' },
        '403': { description: 'Foreign Origin' },
        '405': { description: 'Only POST is served' },
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Machine Compute, Chain and Contract Service',
      version: API_VERSION,
      description: 'Every operation is also an action of one of the 57 MCP tools (see x-mcp-tool), served at POST /api/mcp and over stdio.',
    },
    servers: [{ url: '/' }],
    tags: [
      ...[...new Set(registry.tools.map((t) => t.toolset))].map((name) => ({ name })),
      { name: SOLVERS_TAG, description: 'The 32 sealed numerical solvers: list, describe, solve.' },
    ],
    paths,
    components: {
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'A key of the form core_<random>' },
        apiKeyAuth: {
          type: 'apiKey',
          in: 'header',
          name: 'X-API-Key',
          description: 'The same key, for clients that send only this header (Authorization counts when both are sent)',
        },
      },
      schemas: { Error: errorSchema() },
    },
  };
}

function operationObject(op: Operation): Record<string, unknown> {
  const props = (op.inputSchema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((op.inputSchema.required ?? []) as string[]);
  const parameters: unknown[] = op.pathParams.map((name) => ({
    name,
    in: 'path',
    required: true,
    schema: props[name] ?? { type: 'string' },
  }));
  const rest = Object.keys(props).filter((k) => !op.pathParams.includes(k));
  const hasBody = op.method !== 'GET' && op.method !== 'DELETE';
  // An alias is listed beside the field it names, never required: either name may be sent.
  const aliases = Object.entries(op.def.aliases ?? {}).map(
    ([alias, name]) => [alias, { ...props[name], description: `Alias of ${name} (the spec's name); send one of the two` }] as const,
  );
  if (!hasBody) {
    for (const name of rest) parameters.push({ name, in: 'query', required: required.has(name), schema: props[name] });
    for (const [name, schema] of aliases) parameters.push({ name, in: 'query', required: false, schema });
  }
  const result: Record<string, unknown> = {
    operationId: op.id,
    summary: op.def.summary,
    tags: tagsOf(op),
    'x-mcp-tool': op.tool.name,
    'x-mcp-action': op.action,
    'x-area': op.def.area,
    ...(op.def.role ? { 'x-required-role': op.def.role } : {}),
    ...(op.def.maxBodyBytes ? { 'x-max-body-bytes': op.def.maxBodyBytes } : {}),
    security: keyRequired(op.def) ? [{ bearerAuth: [] }, { apiKeyAuth: [] }] : [{}, { bearerAuth: [] }, { apiKeyAuth: [] }],
    parameters,
    responses: responsesOf(op),
  };
  if (hasBody && rest.length > 0) {
    const bodySchema: JsonSchema = {
      ...op.inputSchema,
      properties: Object.fromEntries([...rest.map((k) => [k, props[k]] as const), ...aliases]),
      required: [...required].filter((k) => rest.includes(k)),
    };
    result.requestBody = {
      required: (bodySchema.required as string[]).length > 0,
      content: { 'application/json': { schema: bodySchema } },
    };
  }
  return result;
}

function responsesOf(op: Operation): Record<string, unknown> {
  const type = contentTypeOf(op.response);
  const ok =
    op.response.kind === 'stream'
      ? { [type]: { schema: { type: 'string', description: 'SSE frames; each data line is JSON', 'x-event': op.outputSchema } } }
      : op.response.kind === 'raw'
        ? { [type]: { schema: { type: 'string' } } }
        : { [type]: { schema: op.outputSchema } };
  const errorRef = { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } };
  const responses: Record<string, unknown> = {
    '200': { description: 'Success', content: ok },
    '400': { description: 'VALIDATION_FAILED: the input does not match the schema', content: errorRef },
  };
  if (keyRequired(op.def)) responses['401'] = { description: 'Missing or invalid key', content: errorRef };
  if (op.def.role) responses['403'] = { description: `FORBIDDEN: needs the ${op.def.role} role`, content: errorRef };
  if (op.pathParams.length > 0) responses['404'] = { description: 'NOT_FOUND', content: errorRef };
  return responses;
}

function errorSchema(): JsonSchema {
  return {
    type: 'object',
    required: ['error'],
    properties: {
      error: {
        type: 'object',
        required: ['code', 'message'],
        properties: {
          code: { type: 'string', enum: [...ERROR_CODES] },
          message: { type: 'string' },
          details: {},
          request_id: { type: 'string' },
        },
      },
    },
    'x-status-of-code': STATUS_OF,
  };
}
