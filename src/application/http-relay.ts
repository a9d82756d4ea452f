import { errors } from '../errors.js';
import { collectEvents, isSseSource } from '../pipeline/collect-events.js';
import type { Pipeline } from '../pipeline/invoke.js';
import type { SurfaceFilter } from '../registry/mcp-tools.js';
import type { Registry } from '../registry/registry.js';
import { reachRefusal } from '../registry/surface-reach.js';
import type { HttpRelay } from '../registry/app-ports.js';
import { rawBodyAsJson, type RawBody } from '../lib/handler-results.js';
// core_http is a REST call spelled inside a tool call: its input is built exactly as the REST transport builds it.
import { restInput } from '../registry/rest-input.js';

const PLAIN_PATH = /^\/api\/[\w\-/]*$/;
/** The operation `core_http` itself runs. */
const SELF_OPERATION = 'http.call';

/**
 * `filter` is the server's surface controls (`CORE_TOOLSETS`, `CORE_READ_ONLY`): the relay reaches only
 * the operations they leave, so a narrowed tool surface cannot be widened by naming a hidden path.
 */
export function createHttpRelay(deps: { registry: Registry; filter?: SurfaceFilter; invokeAs: Pipeline['invokeAs'] }): HttpRelay {
  const { registry } = deps;
  const filter = deps.filter ?? {};
  return {
    async call(call, ctx) {
      // A plain path (no query, dots or escapes) is already what URL parsing would give back: skip it.
      const url = PLAIN_PATH.test(call.path) ? { pathname: call.path, searchParams: undefined } : new URL(call.path, 'http://core.local');
      if (url.pathname === '/api/mcp') throw errors.validation('/api/mcp is the MCP transport; call the tool directly instead');
      const match = registry.match(call.method, url.pathname);
      if (match.kind === 'not-found') throw errors.notFound(`No route ${call.method} ${url.pathname}; search with core_api_catalog`);
      if (match.kind === 'method-not-allowed') {
        throw errors.validation(`${call.method} is not allowed on ${url.pathname}; use ${match.allowed.join(' or ')}`);
      }
      // The operation the router found, not the path as written: escapes, slashes and dot segments
      // spell the same route many ways.
      if (match.op.id === SELF_OPERATION) throw errors.validation('core_http cannot call itself; call the target path directly');
      // Before the input is read: a hidden operation is refused the same way whatever is sent to it.
      const hidden = reachRefusal(match.op, filter);
      if (hidden) throw hidden;
      const query: Record<string, unknown> = url.searchParams ? Object.fromEntries(url.searchParams) : {};
      if (call.query) for (const [k, v] of Object.entries(call.query)) query[k] = typeof v === 'number' || typeof v === 'boolean' ? String(v) : v;
      const input = restInput(match.op, match.params, query, call.body);
      if (input instanceof Error) throw input;
      // `?share_token=` is read as REST reads it: a credential beside the caller's key, never the target's input.
      const shared = query.share_token;
      const caller = typeof shared === 'string' && shared !== '' ? { ...ctx.caller, shareToken: shared } : ctx.caller;
      const result = await deps.invokeAs(match.op, input, caller, {
        surface: 'core_http',
        validateFirst: true,
        ...(ctx.clientIp ? { clientIp: ctx.clientIp } : {}),
        requestId: ctx.requestId,
        // Lazily: reading ctx.signal makes the caller's abort signal, which a cheap read never needs.
        signal: () => ctx.signal,
      });
      if (!result.ok) throw result.error;
      if (match.op.response.kind === 'stream' && isSseSource(result.value)) {
        const collected = await collectEvents(result.value, { maxEvents: call.max_events, maxMs: call.max_ms, signal: ctx.signal });
        return { ok: true, ...collected };
      }
      if (match.op.response.kind === 'raw') return { ok: true, ...rawBodyAsJson(result.value as RawBody) };
      return result.value as Record<string, unknown>;
    },
  };
}
