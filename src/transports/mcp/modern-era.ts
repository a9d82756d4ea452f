import { CAPABILITIES } from './content-handlers.js';
import { SERVER_INSTRUCTIONS } from './instructions.js';
import { RPC_ERROR } from './rpc-codes.js';
import { isObject } from '../../lib/is-object.js';

/**
 * MCP's modern era (revision 2026-07-28): no `initialize`, every request carries its protocol version
 * and client capabilities in `params._meta`. Both transports use these rules; the handlers behind them
 * are the ones the legacy era uses, so the era only changes what the envelope says.
 */

/** The modern revisions served. Legacy versions are negotiated through `initialize` and are not listed. */
export const MODERN_VERSIONS: readonly string[] = ['2026-07-28'];
const FIRST_MODERN_VERSION = '2026-07-28';

export const META_PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion';
export const META_CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';
export const META_CLIENT_INFO = 'io.modelcontextprotocol/clientInfo';
export const META_SERVER_INFO = 'io.modelcontextprotocol/serverInfo';

/** The methods the modern era serves; `initialize`, `ping`, `logging/setLevel` and the rest are gone from it. */
export const MODERN_METHODS: ReadonlySet<string> = new Set([
  'server/discover',
  'tools/list',
  'tools/call',
  'resources/list',
  'resources/read',
  'resources/templates/list',
  'prompts/list',
  'prompts/get',
]);

/** Where `Mcp-Name` comes from, for the methods that need it. */
export const MCP_NAME_SOURCE: Readonly<Record<string, 'name' | 'uri'>> = { 'tools/call': 'name', 'prompts/get': 'name', 'resources/read': 'uri' };

export interface RpcError {
  code: number;
  message: string;
  data?: unknown;
}

/** A version string of the modern era (the SDK's rule: revisions sort as dates, 2026-07-28 first). */
export function isModernVersion(version: string): boolean {
  return version >= FIRST_MODERN_VERSION;
}

/** The request's `_meta`, when its params carry one. */
export function requestMeta(params: unknown): Record<string, unknown> | undefined {
  if (!isObject(params)) return undefined;
  const meta = params['_meta'];
  return isObject(meta) ? meta : undefined;
}

/** Whether a message claims the modern era: its `_meta` names a protocol version. */
export function claimsModern(params: unknown): boolean {
  const meta = requestMeta(params);
  return meta !== undefined && META_PROTOCOL_VERSION in meta;
}

const LOG_LEVELS = new Set(['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency']);

/**
 * What is wrong with the shape of a modern request's `_meta`, as the revision words it: a missing or
 * malformed required field is -32602 (HTTP 400). Undefined when the envelope is well formed; whether its
 * version is one this server speaks is `versionError`'s question.
 */
export function envelopeError(params: unknown): RpcError | undefined {
  const meta = requestMeta(params);
  if (!meta) {
    return { code: RPC_ERROR.INVALID_PARAMS, message: `Invalid params: _meta with ${META_PROTOCOL_VERSION} and ${META_CLIENT_CAPABILITIES} is required` };
  }
  if (typeof meta[META_PROTOCOL_VERSION] !== 'string') {
    return { code: RPC_ERROR.INVALID_PARAMS, message: `Invalid params: _meta.${META_PROTOCOL_VERSION} must be a protocol version string` };
  }
  if (!isObject(meta[META_CLIENT_CAPABILITIES])) {
    return { code: RPC_ERROR.INVALID_PARAMS, message: `Invalid params: _meta.${META_CLIENT_CAPABILITIES} must be an object (empty when the client has none)` };
  }
  const info = meta[META_CLIENT_INFO];
  if (info !== undefined && !(isObject(info) && typeof info['name'] === 'string' && typeof info['version'] === 'string')) {
    return { code: RPC_ERROR.INVALID_PARAMS, message: `Invalid params: _meta.${META_CLIENT_INFO} must be { name, version }` };
  }
  const level = meta['io.modelcontextprotocol/logLevel'];
  if (level !== undefined && !(typeof level === 'string' && LOG_LEVELS.has(level))) {
    return { code: RPC_ERROR.INVALID_PARAMS, message: 'Invalid params: _meta.io.modelcontextprotocol/logLevel must be a logging level' };
  }
  const token = meta['progressToken'];
  if (token !== undefined && typeof token !== 'string' && !Number.isInteger(token)) {
    return { code: RPC_ERROR.INVALID_PARAMS, message: 'Invalid params: _meta.progressToken must be a string or an integer' };
  }
  return undefined;
}

/** The protocol version a well-formed envelope names. */
export function envelopeVersion(params: unknown): string {
  return requestMeta(params)![META_PROTOCOL_VERSION] as string;
}

/** -32022 for a version this server does not speak in the modern era; undefined for one it does. */
export function versionError(version: string): RpcError | undefined {
  if (MODERN_VERSIONS.includes(version)) return undefined;
  return {
    code: RPC_ERROR.UNSUPPORTED_PROTOCOL_VERSION,
    message: `Unsupported protocol version ${version}; supported: ${MODERN_VERSIONS.join(', ')} (and, through initialize, 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05)`,
    data: { supported: [...MODERN_VERSIONS], requested: version },
  };
}

/** Cache hints of a cacheable result (`CacheableResult`: `ttlMs`, `cacheScope`). */
export interface CacheHints {
  ttlMs: number;
  cacheScope: 'public' | 'private';
}

/**
 * The revision's cacheable results and how long each stays true. Tools, prompts and templates change only
 * with the server's version and its settings (a restart), so clients may keep them a few minutes; the
 * resource list and contents follow the operator registry, which grows at runtime when a community
 * operator is promoted, so they are stale at once. Nothing depends on who asks, except the tool list of a
 * surface narrowed by its toolset or read-only settings, which is marked private so that no shared cache
 * hands it to a caller of a differently configured server.
 */
export function cacheHints(method: string, narrowed: boolean): CacheHints | undefined {
  switch (method) {
    case 'tools/list':
      return { ttlMs: STATIC_TTL_MS, cacheScope: narrowed ? 'private' : 'public' };
    case 'server/discover':
    case 'prompts/list':
    case 'resources/templates/list':
      return { ttlMs: STATIC_TTL_MS, cacheScope: 'public' };
    case 'resources/list':
    case 'resources/read':
      return { ttlMs: 0, cacheScope: 'public' };
    default:
      return undefined;
  }
}

/** Five minutes: how long a list that changes only on a restart is offered as fresh. */
export const STATIC_TTL_MS = 300_000;

export interface ServerInfo {
  name: string;
  title: string;
  version: string;
}

export function serverInfoOf(version: string): ServerInfo {
  return Object.freeze({ name: 'core-server', title: 'Machine Compute, Chain and Contract Service', version });
}

/**
 * The `_meta` every result but discover's carries: the server's name and version only (the revision's
 * `Implementation` needs no more; discover carries the title too). One frozen object per server, so the
 * transport serializes it once (`rpcResponseJson`), not on every call.
 */
const compactMeta = new WeakMap<ServerInfo, Readonly<Record<string, unknown>>>();
function resultMeta(serverInfo: ServerInfo): Readonly<Record<string, unknown>> {
  let meta = compactMeta.get(serverInfo);
  if (meta === undefined) {
    meta = Object.freeze({ [META_SERVER_INFO]: Object.freeze({ name: serverInfo.name, version: serverInfo.version }) });
    compactMeta.set(serverInfo, meta);
  }
  return meta;
}

/**
 * A legacy-shaped result as the modern era sends it: `resultType`, the server's identity in `_meta`, and
 * cache hints where the method's result is cacheable. The object is changed in place and returned (results
 * go straight from the handler to the wire; keeping the object keeps `rpcResponseJson`'s fast path).
 */
export function modernResult<T extends object>(method: string, result: T, serverInfo: ServerInfo, narrowed: boolean): T {
  const target = result as Record<string, unknown>;
  target['resultType'] = 'complete';
  const hints = cacheHints(method, narrowed);
  if (hints) {
    target['ttlMs'] = hints.ttlMs;
    target['cacheScope'] = hints.cacheScope;
  }
  const meta = target['_meta'];
  if (method === 'server/discover') target['_meta'] = { ...(isObject(meta) ? meta : {}), [META_SERVER_INFO]: serverInfo };
  else target['_meta'] = isObject(meta) ? { ...meta, [META_SERVER_INFO]: resultMeta(serverInfo)[META_SERVER_INFO] } : resultMeta(serverInfo);
  return result;
}

/** The `server/discover` result, before `modernResult` adds the envelope. */
export function discoverResult(): Record<string, unknown> {
  return { supportedVersions: [...MODERN_VERSIONS], capabilities: CAPABILITIES, instructions: SERVER_INSTRUCTIONS };
}

/**
 * A header value as the revision encodes it: `=?base64?...?=` carries a Base64 UTF-8 value; anything else is
 * literal. Undefined for a sentinel that is not valid Base64.
 */
export function decodeHeaderValue(value: string): string | undefined {
  if (!(value.startsWith('=?base64?') && value.endsWith('?=') && value.length >= 11)) return value;
  const encoded = value.slice(9, -2);
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(encoded) || encoded.length % 4 !== 0) return undefined;
  return Buffer.from(encoded, 'base64').toString('utf8');
}
