import { CoreError, errors } from '../../errors.js';
import { ALPHA, PULSE_HZ, TICK_MS } from '../../lib/clock.js';
import { collectEvents, isSseSource } from '../../pipeline/collect-events.js';
import { searchEndpoints } from '../../registry/catalog.js';
import { openApiOf } from '../../registry/openapi.js';
import { restInput } from '../../transports/http/rest-input.js';
export function createPlatformService(deps) {
    const { clock, store } = deps;
    let stopping = false;
    let openapi;
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
        metrics() {
            const mem = process.memoryUsage();
            const body = deps.metrics.render({
                core_uptime_seconds: Math.round((Date.now() - deps.startedAt) / 1000),
                core_tick: clock.tick(),
                process_resident_memory_bytes: mem.rss,
                nodejs_heap_used_bytes: mem.heapUsed,
            });
            return { contentType: 'text/plain; version=0.0.4; charset=utf-8', body };
        },
        searchEndpoints(query) {
            const endpoints = searchEndpoints(deps.registry(), query);
            return { ok: true, count: endpoints.length, version: deps.version, endpoints };
        },
        openapi: () => (openapi ??= openApiOf(deps.registry())),
        async callHttp(call, ctx) {
            const url = new URL(call.path, 'http://core.local');
            if (url.pathname === '/api/http')
                throw errors.validation('core_http cannot call itself; call the target path directly');
            if (url.pathname === '/api/mcp')
                throw errors.validation('/api/mcp is the MCP transport; call the tool directly instead');
            const match = deps.registry().match(call.method, url.pathname);
            if (match.kind === 'not-found')
                throw errors.notFound(`No route ${call.method} ${url.pathname}; search with core_api_catalog`);
            if (match.kind === 'method-not-allowed') {
                throw errors.validation(`${call.method} is not allowed on ${url.pathname}; use ${match.allowed.join(' or ')}`);
            }
            const query = Object.fromEntries(url.searchParams);
            for (const [k, v] of Object.entries(call.query ?? {}))
                query[k] = typeof v === 'number' || typeof v === 'boolean' ? String(v) : v;
            const input = restInput(match.op, match.params, query, call.body);
            if (input instanceof Error)
                throw input;
            const invalid = deps.pipeline().validate(match.op, input);
            if (invalid)
                throw invalid;
            const result = await deps.pipeline().invokeAs(match.op, input, ctx.caller, {
                surface: 'core_http',
                requestId: ctx.requestId,
                signal: ctx.signal,
            });
            if (!result.ok)
                throw result.error;
            if (match.op.def.stream && isSseSource(result.value)) {
                const collected = await collectEvents(result.value, { maxEvents: call.max_events, maxMs: call.max_ms, signal: ctx.signal });
                return { ok: true, ...collected };
            }
            if (match.op.def.produces) {
                const raw = result.value;
                const text = typeof raw.body === 'string' ? raw.body : Buffer.from(raw.body).toString('base64');
                return { ok: true, content_type: raw.contentType, encoding: typeof raw.body === 'string' ? 'utf8' : 'base64', body: text };
            }
            return result.value;
        },
        setStopping() {
            stopping = true;
        },
    };
}
//# sourceMappingURL=platform.service.js.map