import { CoreError, errors } from '../../errors.js';
import { ALPHA, PULSE_HZ, TICK_MS, type Clock } from '../../lib/clock.js';
import { collectEvents, isSseSource } from '../../pipeline/collect-events.js';
import type { Pipeline } from '../../pipeline/invoke.js';
import { catalogMap, searchEndpoints, type EndpointEntry, type EndpointQuery } from '../../registry/catalog.js';
import { openApiOf } from '../../registry/openapi.js';
import type { Registry } from '../../registry/registry.js';
import type { ActionContext, RawBody } from '../../registry/types.js';
import type { OpenApiDocument } from '../../registry/openapi.js';
import { restInput } from '../../transports/http/rest-input.js';
import type { Store } from '../../storage/port.js';
import type { Metrics } from './metrics.js';

export interface HttpCall {
  method: string;
  path: string;
  query?: Record<string, unknown>;
  body?: Record<string, unknown>;
  max_events: number;
  max_ms: number;
}

export interface PlatformService {
  pulse(): { ok: true; tick: number; phase: number; pulse_hz: 1.287; tick_ms: 777; unix_ms: number; R_t: number; alpha: number };
  health(): { ok: true; status: 'ok' | 'starting' | 'stopping'; checks: Record<string, { ok: boolean; detail?: string }> };
  status(): { ok: true; version: string; uptime_s: number; backend: 'lowdb' | 'postgres'; tick: number; started_at: string; node_version: string };
  metrics(): Promise<RawBody>;
  searchEndpoints(query: EndpointQuery): { ok: true; count: number; version: string; endpoints: EndpointEntry[] };
  openapi(): OpenApiDocument;
  /** What `core_api_catalog` answers to a call without arguments. */
  endpointMap(): ReturnType<typeof catalogMap>;
  /** `core_http`: validates against the matched operation first, then runs it as the caller. */
  callHttp(call: HttpCall, ctx: ActionContext): Promise<Record<string, unknown>>;
  /** Marks the node as shutting down (health answers stopping). */
  setStopping(): void;
}

export interface PlatformDeps {
  clock: Clock;
  store: Store;
  metrics: Metrics;
  version: string;
  startedAt: number;
  /** Bound after composition: the registry and pipeline need the services first. */
  registry: () => Registry;
  pipeline: () => Pipeline;
}

const PLAIN_PATH = /^\/api\/[\w\-/]*$/;
/** The operation `core_http` itself runs. */
const SELF_OPERATION = 'http.call';

export function createPlatformService(deps: PlatformDeps): PlatformService {
  const { clock, store } = deps;
  let stopping = false;
  let openapi: OpenApiDocument | undefined;

  return {
    pulse() {
      const unix = clock.now();
      const t = unix / 1000;
      return {
        ok: true,
        tick: clock.tick(),
        phase: clock.phase(),
        pulse_hz: PULSE_HZ,
        tick_ms: TICK_MS,
        unix_ms: unix,
        R_t: 1 + ALPHA * Math.sin(2 * Math.PI * PULSE_HZ * t),
        alpha: ALPHA,
      };
    },

    health() {
      const storeOk = store.isOpen();
      if (!storeOk || stopping) {
        const detail = stopping ? 'the node is shutting down' : 'storage is not open';
        throw new CoreError('UNAVAILABLE', detail);
      }
      return { ok: true, status: 'ok', checks: { storage: { ok: true, detail: `${store.backend} open` } } };
    },

    status() {
      return {
        ok: true,
        version: deps.version,
        uptime_s: Math.round((Date.now() - deps.startedAt) / 100) / 10,
        backend: store.backend,
        tick: clock.tick(),
        started_at: new Date(deps.startedAt).toISOString(),
        node_version: process.version,
      };
    },

    async metrics() {
      return { contentType: deps.metrics.contentType, body: await deps.metrics.render() };
    },

    searchEndpoints(query) {
      const endpoints = searchEndpoints(deps.registry(), query);
      return { ok: true, count: endpoints.length, version: deps.version, endpoints };
    },

    openapi: () => (openapi ??= openApiOf(deps.registry())),

    endpointMap: () => catalogMap(deps.registry(), deps.version),

    async callHttp(call, ctx) {
      // A plain path (no query, dots or escapes) is already what URL parsing would give back: skip it.
      const url = PLAIN_PATH.test(call.path) ? { pathname: call.path, searchParams: undefined } : new URL(call.path, 'http://core.local');
      if (url.pathname === '/api/mcp') throw errors.validation('/api/mcp is the MCP transport; call the tool directly instead');
      const match = deps.registry().match(call.method, url.pathname);
      if (match.kind === 'not-found') throw errors.notFound(`No route ${call.method} ${url.pathname}; search with core_api_catalog`);
      if (match.kind === 'method-not-allowed') {
        throw errors.validation(`${call.method} is not allowed on ${url.pathname}; use ${match.allowed.join(' or ')}`);
      }
      // The operation the router found, not the path as written: escapes, slashes and dot segments
      // spell the same route many ways.
      if (match.op.id === SELF_OPERATION) throw errors.validation('core_http cannot call itself; call the target path directly');
      const query: Record<string, unknown> = url.searchParams ? Object.fromEntries(url.searchParams) : {};
      if (call.query) for (const [k, v] of Object.entries(call.query)) query[k] = typeof v === 'number' || typeof v === 'boolean' ? String(v) : v;
      const input = restInput(match.op, match.params, query, call.body);
      if (input instanceof Error) throw input;
      const result = await deps.pipeline().invokeAs(match.op, input, ctx.caller, {
        surface: 'core_http',
        validateFirst: true,
        ...(ctx.clientIp ? { clientIp: ctx.clientIp } : {}),
        requestId: ctx.requestId,
        // Lazily: reading ctx.signal makes the caller's abort signal, which a cheap read never needs.
        signal: () => ctx.signal,
      });
      if (!result.ok) throw result.error;
      if (match.op.def.stream && isSseSource(result.value)) {
        const collected = await collectEvents(result.value, { maxEvents: call.max_events, maxMs: call.max_ms, signal: ctx.signal });
        return { ok: true, ...collected };
      }
      if (match.op.def.produces) {
        const raw = result.value as RawBody;
        const text = typeof raw.body === 'string' ? raw.body : Buffer.from(raw.body).toString('base64');
        return { ok: true, content_type: raw.contentType, encoding: typeof raw.body === 'string' ? 'utf8' : 'base64', body: text };
      }
      return result.value as Record<string, unknown>;
    },

    setStopping() {
      stopping = true;
    },
  };
}
