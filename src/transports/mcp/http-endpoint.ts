import {
  CallToolRequestSchema,
  GetPromptRequestSchema,
  ReadResourceRequestSchema,
  InitializeRequestSchema,
  JSONRPCMessageSchema,
  LATEST_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
  type JSONRPCMessage,
} from '@modelcontextprotocol/sdk/types.js';
import { randomUUID } from 'node:crypto';
import type { Credentials } from '../../pipeline/authenticate.js';
import type { Admission } from '../../pipeline/invoke.js';
import { createMcpBodyLimits } from './body-limits.js';
import { mcpToolsOf, type McpToolDescriptor } from '../../registry/mcp-tools.js';
import { callTool, UnknownToolError, type ToolSurface } from './call-tool.js';
import { SERVER_INSTRUCTIONS } from './instructions.js';
import { CAPABILITIES, ContentError, contentHandlers } from './content-handlers.js';
import { createHostPolicy, type HostPolicy } from '../http/host-policy.js';
import { claimsModern, discoverResult, envelopeError, isModernVersion, modernResult, serverInfoOf, type RpcError } from './modern-era.js';
import { modernHeaderError } from './modern-headers.js';
import { unavailableRpcOf } from './unavailable-rpc.js';
import { RPC_ERROR } from './rpc-codes.js';
import { isObject } from '../../lib/is-object.js';

export interface McpHttpRequest {
  method: string;
  headers: Record<string, string | string[] | undefined>;
  /** The parsed JSON body (undefined when there was none). */
  body: unknown;
  credentials: Credentials;
  /** The caller the transport admitted (authenticated, rate token taken) before it read the body. */
  admission?: Admission;
  /** Client address, for per-address limits of anonymous callers (rate, demo keys, unlock guesses). */
  clientIp?: string;
  requestId: string;
  /** The caller's abort signal, or a function that makes it on first use. */
  signal: AbortSignal | (() => AbortSignal);
}

export interface McpHttpResponse {
  status: number;
  headers: Record<string, string>;
  body?: unknown;
}

/**
 * Stateless Streamable HTTP for `POST /api/mcp`: one long-lived handler that validates messages with
 * the SDK's own schemas and dispatches into the registry. JSON responses only; no sessions, so GET
 * (the server-to-client stream) is not offered. A page from a foreign origin is refused whatever its
 * credentials (`hosts` says which origins are this node's).
 *
 * Both MCP eras are served, chosen per message: a request whose `params._meta` names a protocol version
 * (or whose `MCP-Protocol-Version` header names a modern one) is served as revision 2026-07-28 (headers
 * checked against the body, `resultType` and cache hints added); anything else exactly as before
 * (`initialize`, then requests without `_meta` version).
 */
export function createMcpHttpHandler(surface: ToolSurface, version: string, hosts: HostPolicy = createHostPolicy()) {
  let tools: McpToolDescriptor[] | undefined;
  const content = contentHandlers(surface.content);
  const listTools = () => (tools ??= mcpToolsOf(surface.registry, surface.filter));
  const serverInfo = serverInfoOf(version);
  const narrowed = surface.filter.toolsets !== undefined || surface.filter.readOnly === true;
  const limits = createMcpBodyLimits(surface.registry, surface.filter);

  /**
   * The request, and `bodyBound(caller, header)`: how much of its body the transport may read for this
   * caller before parsing it (see `body-limits.ts`).
   */
  return Object.assign(handle, { bodyBound: limits.boundFor });

  async function handle(req: McpHttpRequest): Promise<McpHttpResponse> {
    if (req.method !== 'POST') {
      return rpcError(405, null, RPC_ERROR.REFUSED, 'Method not allowed: this endpoint is stateless; send JSON-RPC with POST', { Allow: 'POST' });
    }
    const origin = header(req, 'origin');
    if (origin && !hosts.originAllowed(origin, header(req, 'host'))) {
      return rpcError(403, null, RPC_ERROR.REFUSED, `Forbidden: Origin ${origin} is not allowed`);
    }
    const accept = header(req, 'accept');
    if (accept && !/application\/json|\*\/\*|application\/\*/.test(accept)) {
      return rpcError(406, null, RPC_ERROR.REFUSED, 'Not acceptable: the client must accept application/json');
    }
    const type = header(req, 'content-type');
    if (!type || !/^application\/json\b/i.test(type)) {
      return rpcError(415, null, RPC_ERROR.REFUSED, 'Unsupported media type: send Content-Type: application/json');
    }
    const protocol = header(req, 'mcp-protocol-version');
    const legacyHeader = protocol !== undefined && !isModernVersion(protocol) && !claimsModern((req.body as { params?: unknown } | undefined)?.params);
    if (legacyHeader && !SUPPORTED_PROTOCOL_VERSIONS.includes(protocol)) {
      return rpcError(400, null, RPC_ERROR.REFUSED, `Unsupported MCP-Protocol-Version ${protocol}; supported: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')}`);
    }
    if (Array.isArray(req.body))
      return rpcError(400, null, RPC_ERROR.INVALID_REQUEST, 'Invalid Request: batches are not supported; send one message per request');
    let message: (JSONRPCMessage & { id?: string | number; method?: string }) | RequestMessage | undefined = plainRequest(req.body);
    if (message === undefined) {
      const parsed = JSONRPCMessageSchema.safeParse(req.body);
      if (!parsed.success) return rpcError(400, null, RPC_ERROR.INVALID_REQUEST, 'Invalid Request: the body is not a JSON-RPC 2.0 message');
      message = parsed.data as JSONRPCMessage & { id?: string | number; method?: string };
    }
    const params = (message as { params?: unknown }).params;
    if (message.method === undefined || message.id === undefined) return { status: 202, headers: {} };
    const request = message as RequestMessage;
    try {
      if (claimsModern(params) || (protocol !== undefined && isModernVersion(protocol))) return await respondModern(request, req);
      return { status: 200, headers: { 'Content-Type': 'application/json' }, body: await respond(request, req) };
    } catch (err) {
      // A request that hit a store that is down before any tool ran: a JSON-RPC error that says so, and a
      // 503 with Retry-After for the proxies and clients that read the HTTP status.
      const unavailable = unavailableRpcOf(err, req.requestId);
      if (unavailable === undefined) throw err;
      return {
        status: 503,
        headers: { 'Content-Type': 'application/json', 'Retry-After': String(unavailable.retryAfterS) },
        body: rpcErrorBody(request.id, unavailable.code, unavailable.message, unavailable.data),
      };
    }
  }

  /**
   * A request of the modern era, checked in the order the revision's SDK checks it: the `_meta` envelope
   * (-32602), `MCP-Protocol-Version` present and equal to it (-32020), a version this server speaks
   * (-32022), `Mcp-Method` and `Mcp-Name` present and equal to the body (-32020), a method the era has
   * (404, -32601); then the same handlers as the legacy era, their result stamped for this era.
   */
  async function respondModern(message: RequestMessage, req: McpHttpRequest): Promise<McpHttpResponse> {
    const { id, method, params } = message;
    const refused = envelopeError(params) ?? modernHeaderError(message, (name) => header(req, name));
    if (refused) return modernError(refused.code === RPC_ERROR.METHOD_NOT_FOUND ? 404 : 400, id, refused);
    if (method === 'server/discover') {
      return {
        status: 200,
        headers: { 'Content-Type': 'application/json' },
        body: { jsonrpc: '2.0', id, result: modernResult(method, discoverResult(), serverInfo, narrowed) },
      };
    }
    const body = (await respond(message, req)) as { result?: object; error?: RpcError };
    if (body.result !== undefined) modernResult(method, body.result, serverInfo, narrowed);
    // The revision retired -32002 (resource not found): it is invalid params now.
    else if (body.error?.code === RPC_ERROR.RESOURCE_NOT_FOUND) body.error.code = RPC_ERROR.INVALID_PARAMS;
    return { status: 200, headers: { 'Content-Type': 'application/json' }, body };
  }

  async function respond(message: RequestMessage, req: McpHttpRequest): Promise<unknown> {
    const { id } = message;
    switch (message.method) {
      case 'initialize': {
        const init = InitializeRequestSchema.safeParse(message);
        if (!init.success) return rpcErrorBody(id, RPC_ERROR.INVALID_PARAMS, 'Invalid params for initialize');
        const requested = init.data.params.protocolVersion;
        return {
          jsonrpc: '2.0',
          id,
          result: {
            protocolVersion: SUPPORTED_PROTOCOL_VERSIONS.includes(requested) ? requested : LATEST_PROTOCOL_VERSION,
            capabilities: CAPABILITIES,
            serverInfo: { name: 'core-server', title: 'Machine Compute, Chain and Contract Service', version },
            instructions: SERVER_INSTRUCTIONS,
          },
        };
      }
      case 'ping':
        return { jsonrpc: '2.0', id, result: {} };
      case 'tools/list':
        return { jsonrpc: '2.0', id, result: { tools: listTools() } };
      case 'tools/call': {
        let params = plainCallParams(message.params);
        if (params === undefined) {
          const call = CallToolRequestSchema.safeParse(message);
          if (!call.success) return rpcErrorBody(id, RPC_ERROR.INVALID_PARAMS, 'Invalid params for tools/call: expected { name, arguments? }');
          params = call.data.params;
        }
        try {
          const result = await callTool(surface, params.name, params.arguments, req.credentials, {
            surface: 'mcp-http',
            ...(req.clientIp ? { clientIp: req.clientIp } : {}),
            requestId: req.requestId ?? randomUUID(),
            signal: req.signal,
            ...(req.admission ? { admission: req.admission } : {}),
          });
          return { jsonrpc: '2.0', id, result };
        } catch (err) {
          if (err instanceof UnknownToolError) return rpcErrorBody(id, RPC_ERROR.INVALID_PARAMS, err.message);
          throw err;
        }
      }
      case 'resources/list':
        return { jsonrpc: '2.0', id, result: await content.listResources() };
      case 'resources/templates/list':
        return { jsonrpc: '2.0', id, result: { resourceTemplates: [] } };
      case 'resources/read': {
        const read = ReadResourceRequestSchema.safeParse(message);
        if (!read.success) return rpcErrorBody(id, RPC_ERROR.INVALID_PARAMS, 'Invalid params for resources/read: expected { uri }');
        return withContentErrors(id, () => content.readResource(read.data.params.uri));
      }
      case 'prompts/list':
        return { jsonrpc: '2.0', id, result: await content.listPrompts() };
      case 'prompts/get': {
        const get = GetPromptRequestSchema.safeParse(message);
        if (!get.success) return rpcErrorBody(id, RPC_ERROR.INVALID_PARAMS, 'Invalid params for prompts/get: expected { name, arguments? }');
        return withContentErrors(id, () => content.getPrompt(get.data.params.name, get.data.params.arguments ?? {}));
      }
      default:
        return rpcErrorBody(id, RPC_ERROR.METHOD_NOT_FOUND, `Method not found: ${message.method}`);
    }
  }
}

async function withContentErrors(id: string | number, work: () => Promise<unknown>) {
  try {
    return { jsonrpc: '2.0', id, result: await work() };
  } catch (err) {
    if (err instanceof ContentError) return rpcErrorBody(id, err.code, err.message, err.data);
    throw err;
  }
}

type RequestMessage = { jsonrpc: '2.0'; id: string | number; method: string; params?: unknown };

const REQUEST_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);

/**
 * The request nearly every client sends, checked by hand: exactly what the SDK's `JSONRPCMessageSchema`
 * accepts as a request when its params carry no `task` and either no `_meta` or a modern one (whose
 * envelope `respondModern` checks itself); anything else goes through the schema. The union's parse was
 * the largest cost of a `tools/call` after the socket write.
 */
function plainRequest(body: unknown): RequestMessage | undefined {
  if (!isObject(body) || body['jsonrpc'] !== '2.0' || typeof body['method'] !== 'string') return undefined;
  const id = body['id'];
  if (typeof id !== 'string' && !Number.isInteger(id)) return undefined;
  for (const key in body) if (!REQUEST_KEYS.has(key)) return undefined;
  const params = body['params'];
  if (params !== undefined && (!isObject(params) || ('_meta' in params && !claimsModern(params)) || 'task' in params)) return undefined;
  return body as RequestMessage;
}

/** `tools/call` params as `CallToolRequestSchema` reads them, for params without `task` and without `_meta` or with a modern one; otherwise undefined. */
function plainCallParams(params: unknown): { name: string; arguments?: Record<string, unknown> } | undefined {
  if (!isObject(params) || typeof params['name'] !== 'string' || ('_meta' in params && !claimsModern(params)) || 'task' in params) return undefined;
  const args = params['arguments'];
  if (args !== undefined && !isObject(args)) return undefined;
  return params as { name: string; arguments?: Record<string, unknown> };
}

function header(req: McpHttpRequest, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** A JSON-RPC error message. */
export function rpcErrorBody(id: string | number | null, code: number, message: string, data?: unknown) {
  return { jsonrpc: '2.0', id, error: data === undefined ? { code, message } : { code, message, data } };
}

function modernError(status: number, id: string | number, error: RpcError): McpHttpResponse {
  return { status, headers: { 'Content-Type': 'application/json' }, body: { jsonrpc: '2.0', id, error } };
}

function rpcError(status: number, id: null, code: number, message: string, headers: Record<string, string> = {}): McpHttpResponse {
  return { status, headers: { 'Content-Type': 'application/json', ...headers }, body: rpcErrorBody(id, code, message) };
}
