import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { spinUp, type TestServer } from '../helpers/server.js';
import { serverForTest } from '../helpers/use-server.js';

// DNS rebinding (a foreign name resolving to 127.0.0.1: its Host and Origin both carry that name) and
// cross-site writes riding on the session cookie. The test servers listen on 127.0.0.1.

const servers: TestServer[] = [];
afterEach(async () => {
  while (servers.length > 0) await servers.pop()!.close();
});

async function start(env: Record<string, string> = {}): Promise<TestServer> {
  const server = await serverForTest({ CORE_LOGIN_MODE: 'email', ...env });
  return server;
}

/** A request with any Host header (fetch would not let the test set it). */
function send(server: TestServer, method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<{ status: number; body: any }> {
  const text = body === undefined ? undefined : JSON.stringify(body);
  const all: Record<string, string> = { ...headers };
  if (text !== undefined) {
    all['content-type'] ??= 'application/json';
    all['content-length'] = String(Buffer.byteLength(text));
  }
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, server.url), { method, headers: all }, (res) => {
      let out = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (out += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, body: out ? JSON.parse(out) : undefined }));
    });
    req.on('error', reject);
    req.end(text);
  });
}

const portOf = (server: TestServer) => new URL(server.url).port;
const PING = { jsonrpc: '2.0', id: 7, method: 'ping' };
const MCP_HEADERS = { accept: 'application/json, text/event-stream' };

describe('DNS rebinding: a loopback server answers only its own names', () => {
  it('refuses a foreign Host and Origin with 403 on REST and a JSON-RPC error on /api/mcp', async () => {
    const server = await start();
    const evil = `rebind.attacker.example:${portOf(server)}`;
    const rest = await send(server, 'GET', '/api/pulse', { host: evil, origin: `http://${evil}` });
    expect(rest.status).toBe(403);
    expect(rest.body.error).toMatchObject({
      code: 'FORBIDDEN',
      message: expect.stringMatching(/does not answer to the name "rebind\.attacker\.example:\d+".*CORE_ALLOWED_HOSTS/),
    });
    expect(rest.body.error.request_id).toBeTruthy();
    const write = await send(server, 'POST', '/api/demo-key/mint', { host: evil, origin: `http://${evil}` }, {});
    expect(write.status).toBe(403);
    const mcp = await send(server, 'POST', '/api/mcp', { host: evil, origin: `http://${evil}`, ...MCP_HEADERS }, PING);
    expect(mcp.status).toBe(403);
    expect(mcp.body).toMatchObject({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32000, message: expect.stringMatching(/^Forbidden: .*rebind\.attacker\.example/) },
    });
    // Without an Origin too: a rebinding page's simple GET may omit it.
    expect((await send(server, 'GET', '/api/pulse', { host: 'rebind.attacker.example' })).status).toBe(403);
  });

  it.each(['localhost', '127.0.0.1', '[::1]', 'LOCALHOST', 'localhost.'])('serves Host %s (with the port) on REST and MCP', async (name) => {
    const server = await start();
    const host = `${name}:${portOf(server)}`;
    expect((await send(server, 'GET', '/api/pulse', { host })).status).toBe(200);
    const mcp = await send(server, 'POST', '/api/mcp', { host, ...MCP_HEADERS }, PING);
    expect(mcp.status).toBe(200);
    expect(mcp.body).toEqual({ jsonrpc: '2.0', id: 7, result: {} });
  });

  it('serves the names of CORE_ALLOWED_HOSTS and of CORE_PUBLIC_URL, and still no other', async () => {
    const server = await start({ CORE_ALLOWED_HOSTS: 'core.example.org, lan-box:8080', CORE_PUBLIC_URL: 'https://public.example.org' });
    expect((await send(server, 'GET', '/api/pulse', { host: 'core.example.org' })).status).toBe(200);
    expect((await send(server, 'GET', '/api/pulse', { host: 'core.example.org:8443' })).status).toBe(200);
    expect((await send(server, 'GET', '/api/pulse', { host: 'lan-box:8080' })).status).toBe(200);
    expect((await send(server, 'GET', '/api/pulse', { host: 'lan-box:9090' })).status).toBe(403);
    expect((await send(server, 'GET', '/api/pulse', { host: 'public.example.org' })).status).toBe(200);
    const mcp = await send(server, 'POST', '/api/mcp', { host: 'core.example.org', origin: 'https://core.example.org', ...MCP_HEADERS }, PING);
    expect(mcp.status).toBe(200);
    // A proxy that forwards its own upstream Host: the page's origin is the public URL.
    const proxied = await send(server, 'POST', '/api/mcp', { host: `127.0.0.1:${portOf(server)}`, origin: 'https://public.example.org', ...MCP_HEADERS }, PING);
    expect(proxied.status).toBe(200);
    expect((await send(server, 'GET', '/api/pulse', { host: 'rebind.attacker.example' })).status).toBe(403);
  });
});

describe('writes authenticated by the session cookie', () => {
  async function session(server: TestServer): Promise<string> {
    const res = await server.call('POST', '/api/auth/login', { body: { email: 'ada@example.org' } });
    expect(res.status).toBe(200);
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith('core_session='));
    return cookie!.slice(0, cookie!.indexOf(';'));
  }
  // Without a slug the operation refuses in its handler, after authentication: the answer shows the cookie counted.
  const TRACK = { app: 'csrf-test', event: 'opened' };
  const AUTHENTICATED = /Name the machine/;

  it('refuses a cookie write from a foreign Origin with 403 and says what to do', async () => {
    const server = await start();
    const cookie = await session(server);
    const res = await server.call('POST', '/api/apps/track', { body: TRACK, headers: { cookie, origin: 'https://attacker.example' } });
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({
      code: 'FORBIDDEN',
      message: expect.stringMatching(/session cookie.*Origin https:\/\/attacker\.example.*Authorization/),
    });
    const writes: Array<[string, string, unknown]> = [
      ['PATCH', '/api/agent/uwhoever/state', { slug: 'some-machine', patch: {} }],
      ['PUT', '/api/chain/state-machines/some-machine/anchor-config', {}],
      ['DELETE', '/api/chain/some-machine/api-keys/key1', undefined],
    ];
    for (const [method, path, body] of writes) {
      const other = await server.call(method, path, { body, headers: { cookie, origin: 'https://attacker.example' } });
      expect(other.status, `${method} ${path}`).toBe(403);
      expect(other.body.error.message).toMatch(/session cookie/);
    }
    // Sandboxed pages and privacy redirects send `Origin: null`.
    const opaque = await server.call('POST', '/api/apps/track', { body: TRACK, headers: { cookie, origin: 'null' } });
    expect(opaque.status).toBe(403);
  });

  it('takes a cookie write from the same origin or without an Origin (non-browser clients), and reads from anywhere', async () => {
    const server = await start();
    const cookie = await session(server);
    const sameOrigin = await server.call('POST', '/api/apps/track', { body: TRACK, headers: { cookie, origin: server.url } });
    expect(sameOrigin.status).toBe(400);
    expect(sameOrigin.body.error.message).toMatch(AUTHENTICATED);
    const noOrigin = await server.call('POST', '/api/apps/track', { body: TRACK, headers: { cookie } });
    expect(noOrigin.body.error.message).toMatch(AUTHENTICATED);
    const read = await server.call('GET', '/api/agents', { headers: { cookie, origin: 'https://attacker.example' } });
    expect(read.status).toBe(200);
    // Control: without the cookie the same write is unauthenticated, so the answers above did use it.
    expect((await server.call('POST', '/api/apps/track', { body: TRACK })).status).toBe(401);
  });

  it('takes a bearer-key write from a foreign Origin, cookie or not: a page cannot forge that header', async () => {
    const server = await start();
    const cookie = await session(server);
    const { key } = await spinUp(server, 'bearer-origin');
    const res = await server.call('POST', '/api/apps/track', {
      key,
      body: { ...TRACK, slug: 'bearer-origin' },
      headers: { cookie, origin: 'https://attacker.example' },
    });
    expect(res.status).toBe(200);
    // Nor is an anonymous write (no cookie) refused for its Origin: it carries no ambient authority.
    const anonymousWrite = await server.call('POST', '/api/compress', { body: { data: 'x' }, headers: { origin: 'https://attacker.example' } });
    expect(anonymousWrite.status).toBe(200);
  });
});
