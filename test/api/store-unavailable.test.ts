import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { startHttpServer, type RunningServer } from '../../src/server.js';
import { createLowdbStore } from '../../src/storage/lowdb/lowdb.store.js';
import { StoreUnavailableError, type Store } from '../../src/storage/port.js';
import { tempDir, testConfig } from '../helpers/server.js';

/**
 * A real lowdb store with an outage switched on and off: while `down`, it reports the database check
 * down and every document and log call throws `StoreUnavailableError` (with a connection string in its
 * message, which must never reach a caller); while `hang`, calls never settle. Fault injection into the
 * real server, not a stub of any service.
 */
function withOutage(store: Store) {
  const state = { down: false, hang: false };
  const refuse = () => new StoreUnavailableError('unreachable', 'connect ECONNREFUSED postgres://core:s3cret@db.internal:5432/core', 3);
  const faulty = <T extends object>(target: T): T =>
    new Proxy(target, {
      get(t, prop) {
        const value: unknown = Reflect.get(t, prop, t);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          if (state.hang) return new Promise(() => undefined);
          if (state.down) return Promise.reject(refuse());
          return (value as (...a: unknown[]) => unknown).apply(t, args);
        };
      },
    });
  const docs = faulty(store.docs);
  const logs = faulty(store.logs);
  const wrapped = new Proxy(store, {
    get(t, prop) {
      if (prop === 'docs') return docs;
      if (prop === 'logs') return logs;
      if (prop === 'status') {
        return () =>
          state.down
            ? { ready: false, checks: { database: { ok: false, detail: 'connections refused (injected outage)', since_ms: 1 } } }
            : { ready: true, checks: { database: { ok: true } } };
      }
      const value: unknown = Reflect.get(t, prop, t);
      return typeof value === 'function' ? value.bind(t) : value;
    },
  });
  return { store: wrapped, state };
}

let server: RunningServer;
let outage: ReturnType<typeof withOutage>['state'];
let cleanup: () => Promise<void>;
let key: string;
const slug = 'outage-m';

async function call(method: string, p: string, opts: { key?: string; body?: unknown } = {}) {
  const headers: Record<string, string> = {};
  if (opts.key) headers.authorization = `Bearer ${opts.key}`;
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${server.url}${p}`, { method, headers, ...(opts.body !== undefined ? { body: JSON.stringify(opts.body) } : {}) });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? (JSON.parse(text) as any) : undefined, text };
}

async function mcpClient(): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/api/mcp`), { requestInit: { headers: { Authorization: `Bearer ${key}` } } });
  const client = new Client({ name: 'outage', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

beforeAll(async () => {
  const dir = await tempDir();
  cleanup = dir.cleanup;
  const injected = withOutage(createLowdbStore({ dataDir: dir.dir, fsync: false }));
  outage = injected.state;
  server = await startHttpServer({
    config: testConfig(dir.dir, { CORE_RATE_LIMIT: 'off', CORE_RESPONSE_TIMEOUT_MS: '1000' }),
    log: createLogger('silent'),
    store: injected.store,
  });
  const minted = await call('POST', '/api/demo-key/mint', { body: {} });
  key = minted.body.key;
  expect((await call('POST', '/api/chain/state-machines', { key, body: { slug } })).status).toBe(200);
});

afterAll(async () => {
  outage.down = false;
  outage.hang = false;
  await server.stop(1000);
  await cleanup();
});

describe('a store that is down', () => {
  it('answers REST writes and reads 503 UNAVAILABLE with Retry-After and a message that says what is down, never a connection string; 200 again once it recovers', async () => {
    outage.down = true;
    try {
      // A write that needs no key lookup is refused up front, from the store's status.
      const mint = await call('POST', '/api/demo-key/mint', { body: {} });
      expect(mint.status).toBe(503);
      expect(mint.headers.get('retry-after')).toBe('2');
      expect(mint.body.error).toMatchObject({ code: 'UNAVAILABLE', details: { reason: 'unreachable', retry_after_s: 2 } });
      expect(mint.body.error.message).toMatch(/database is unreachable.*nothing of it was stored.*connections refused \(injected outage\)/);
      // A write with a key gets as far as the key lookup, which throws: 503 with the adapter's Retry-After.
      const write = await call('POST', `/api/chain/${slug}/event`, { key, body: { payload: { a: 1 } } });
      expect(write.status).toBe(503);
      expect(write.headers.get('retry-after')).toBe('3');
      expect(write.body.error).toMatchObject({ code: 'UNAVAILABLE', details: { reason: 'unreachable', retry_after_s: 3 } });
      expect(write.text).not.toMatch(/s3cret|postgres:\/\/|db\.internal/);
      const read = await call('GET', `/api/chain/${slug}/activity`, { key });
      expect(read.status).toBe(503);
      expect(read.headers.get('retry-after')).toBe('3');
      expect(read.body.error.code).toBe('UNAVAILABLE');
      expect(read.body.error.message).toContain('ECONNREFUSED');
      expect(read.text).not.toMatch(/s3cret|postgres:\/\/|db\.internal/);
      // Through core_http (anonymous, so the store is first met by the relayed read) and a relayed write.
      const relayed = await call('POST', '/api/http', { body: { method: 'GET', path: `/api/chain/${slug}/activity` } });
      expect(relayed.status).toBe(503);
      expect(relayed.body.error).toMatchObject({ code: 'UNAVAILABLE', details: { reason: 'unreachable' } });
      const relayedWrite = await call('POST', '/api/http', { body: { method: 'POST', path: '/api/demo-key/mint', body: {} } });
      expect(relayedWrite.status).toBe(503);
      expect(relayedWrite.headers.get('retry-after')).toBe('2');
    } finally {
      outage.down = false;
    }
    expect((await call('POST', `/api/chain/${slug}/event`, { key, body: { payload: { a: 2 } } })).status).toBe(200);
    expect((await call('GET', `/api/chain/${slug}/activity`, { key })).status).toBe(200);
  });

  it('reports itself unready (platform.getReady 503 with the failing checks) while liveness stays 200, and ready again once the store recovers', async () => {
    const ready = await call('GET', '/api/health/ready');
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({ ok: true, ready: true, checks: { database: { ok: true }, node: { ok: true } } });
    outage.down = true;
    try {
      const unready = await call('GET', '/api/health/ready');
      expect(unready.status).toBe(503);
      expect(unready.headers.get('retry-after')).toBe('2');
      expect(unready.body.error).toMatchObject({
        code: 'UNAVAILABLE',
        message: expect.stringContaining('database: connections refused'),
        details: { ready: false, checks: { database: { ok: false, detail: 'connections refused (injected outage)' } } },
      });
      expect(unready.body.error.details.checks.node).toBeUndefined();
      const live = await call('GET', '/api/health');
      expect(live.status).toBe(200);
      expect(live.body).toMatchObject({ ok: true, ready: false, checks: { database: { ok: false } } });
      const metrics = await fetch(`${server.url}/api/metrics`).then((r) => r.text());
      expect(metrics).toMatch(/^core_store_ready 0$/m);
      expect(metrics).toMatch(/^core_store_check_up\{check="database"\} 0$/m);
      expect(metrics).toMatch(/^core_unavailable_responses_total\{surface="rest"\} [1-9]/m);
    } finally {
      outage.down = false;
    }
    expect((await call('GET', '/api/health/ready')).status).toBe(200);
    expect(await fetch(`${server.url}/api/metrics`).then((r) => r.text())).toMatch(/^core_store_ready 1$/m);
  });

  it('answers an MCP tools/call with an isError UNAVAILABLE result, through the official client, and serves it once the store recovers', async () => {
    const client = await mcpClient();
    try {
      outage.down = true;
      const refused = await client.callTool({ name: 'core_chain_write', arguments: { action: 'append_event', slug, payload: { m: 1 } } });
      expect(refused.isError).toBe(true);
      expect((refused.content as Array<{ text: string }>)[0]!.text).toMatch(/^UNAVAILABLE: The database is unreachable/);
      expect(refused.structuredContent).toMatchObject({ error: { code: 'UNAVAILABLE', details: { reason: 'unreachable', retry_after_s: 3 } } });
      const read = await client.callTool({ name: 'core_activity', arguments: { action: 'activity', slug } });
      expect(read.isError).toBe(true);
      expect(read.structuredContent).toMatchObject({ error: { code: 'UNAVAILABLE' } });
      expect(JSON.stringify(read)).not.toMatch(/s3cret|postgres:\/\//);
      const probe = await client.callTool({ name: 'core_pulse', arguments: { action: 'ready' } });
      expect(probe.isError).toBe(true);
      // Sent with the client's key, whose lookup meets the outage first.
      expect((probe.content as Array<{ text: string }>)[0]!.text).toMatch(/^UNAVAILABLE: /);
      outage.down = false;
      const written = await client.callTool({ name: 'core_chain_write', arguments: { action: 'append_event', slug, payload: { m: 2 } } });
      expect(written.isError).toBeFalsy();
      expect((await client.callTool({ name: 'core_pulse', arguments: { action: 'ready' } })).structuredContent).toMatchObject({ ready: true });
    } finally {
      outage.down = false;
      await client.close();
    }
  });

  it('answers 503 UNAVAILABLE with Retry-After, on REST and on MCP, when the store hangs instead of failing (the response deadline)', async () => {
    outage.hang = true;
    try {
      const read = await call('GET', `/api/chain/${slug}/activity`, { key });
      expect(read.status).toBe(503);
      expect(read.headers.get('retry-after')).toBe('2');
      expect(read.body.error).toMatchObject({ code: 'UNAVAILABLE', message: expect.stringContaining('No answer within 1000 ms') });
      const rpc = await fetch(`${server.url}/api/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${key}` },
        body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'core_activity', arguments: { action: 'activity', slug } } }),
      });
      const answer = await rpc.text();
      expect(rpc.status, answer).toBe(503);
      expect(rpc.headers.get('retry-after')).toBe('2');
      // The key lookup that hangs comes before the body is read (bound before you parse), so the request's
      // id is not known yet: JSON-RPC's null id for an error that could not tell it.
      expect(JSON.parse(answer)).toMatchObject({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32000, message: expect.stringMatching(/^UNAVAILABLE: No answer within/) },
      });
    } finally {
      outage.hang = false;
    }
    expect((await call('GET', `/api/chain/${slug}/activity`, { key })).status).toBe(200);
  });
});
