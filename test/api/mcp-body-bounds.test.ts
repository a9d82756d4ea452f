import { request } from 'node:http';
import { beforeAll, describe, expect, it } from 'vitest';
import { SOLVE_BODY_BYTES } from '../../src/domain/solvers/body-bytes.js';
import { PROTOCOL_BODY_BYTES } from '../../src/transports/mcp/body-limits.js';
import { mintKey } from '../helpers/server.js';
import { useServer } from '../helpers/use-server.js';

// "Bound before you parse": the body limit of POST /api/mcp follows the JSON-RPC
// method, the tool and the caller, and is applied before JSON.parse; the rate limiter runs before a byte
// of the body is read. A body that would fail the parse or the depth check past its limit is refused
// 413, never 400: that is how these tests show it was not parsed.

const MODERN = '2026-07-28';
const headers = { accept: 'application/json, text/event-stream' };

/** A 13 MB server/discover as the attack sent it: the padding in `_meta`, then JSON that nests too deep and is not even valid. */
function hugeDiscover(): string {
  const head = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'server/discover',
    params: { _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN, pad: 'x'.repeat(13e6) } },
  });
  return `${head.slice(0, -2)},"deep":${'['.repeat(5000)}}} not json`;
}

/** Posts a body over a fresh connection; resolves with the answer, whether or not the server read the whole body. */
function post(url: string, path: string, body: string | undefined, opts: { key?: string; declared?: number; extra?: Record<string, string> } = {}) {
  return new Promise<{ status: number; body: any; headers: Record<string, unknown> }>((resolve, reject) => {
    const req = request(
      `${url}${path}`,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...headers,
          'content-length': String(opts.declared ?? Buffer.byteLength(body ?? '')),
          ...(opts.key ? { authorization: `Bearer ${opts.key}` } : {}),
          ...opts.extra,
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode!, body: text ? JSON.parse(text) : undefined, headers: res.headers }));
      },
    );
    // The server may answer and close before it takes the rest: that is the point, not a failure.
    req.on('error', (err: NodeJS.ErrnoException) => (err.code === 'EPIPE' || err.code === 'ECONNRESET' ? undefined : reject(err)));
    if (body === undefined) req.flushHeaders();
    else req.end(body);
  });
}

describe('POST /api/mcp reads what the method, the tool and the caller allow, before parsing', () => {
  let key: string;
  const server = useServer();
  beforeAll(async () => {
    key = (await mintKey(server)).key;
  });

  it('refuses the anonymous 13 MB server/discover with 413 and a JSON-RPC error, without parsing it', async () => {
    const res = await post(server.url, '/api/mcp', hugeDiscover());
    expect(res.status).toBe(413);
    expect(res.headers.connection).toBe('close');
    expect(res.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32000, data: { code: 'PAYLOAD_TOO_LARGE' } } });
    expect(res.body.error.message).toMatch(/^The request body exceeds 1\.06 MiB, the most this node reads from a caller without a key; send a key/);
    // The MCP endpoint says how to get a key in tool words, not as a REST path.
    expect(res.body.error.message).toContain('mint one with core_account {"action": "mint_demo_key"}');
    expect(res.body.error.message).not.toContain('/api/');
  });

  it('refuses the same discover from a key at 64 KiB, the limit of a method that carries no payload', async () => {
    const res = await post(server.url, '/api/mcp', hugeDiscover(), { key });
    expect(res.status).toBe(413);
    expect(res.body.error).toMatchObject({ code: -32000, data: { code: 'PAYLOAD_TOO_LARGE', limit_bytes: PROTOCOL_BODY_BYTES } });
    expect(res.body.error.message).toBe(
      'The request body exceeds 64 KiB, the limit for server/discover (only tools/call carries large arguments); send it without large params or _meta',
    );
  });

  it('gives initialize, tools/list and ping 64 KiB whatever the caller, and a tool call its tool limit', async () => {
    for (const method of ['initialize', 'tools/list', 'ping', 'notifications/initialized']) {
      const body = JSON.stringify({ jsonrpc: '2.0', id: 2, method, params: { pad: 'y'.repeat(PROTOCOL_BODY_BYTES) } });
      const res = await post(server.url, '/api/mcp', body, { key });
      expect(res.status, method).toBe(413);
      expect(res.body.error.data.limit_bytes).toBe(PROTOCOL_BODY_BYTES);
    }
    // A tool call bigger than 64 KiB but within its tool's limit is read and answered (core_constants: 1 MiB).
    const call = JSON.stringify({
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: { name: 'core_constants', arguments: { action: 'list', pad: 'z'.repeat(200_000) } },
    });
    const answered = await post(server.url, '/api/mcp', call, { key });
    expect(answered.status).toBe(200);
    expect(answered.body.result.isError).toBe(true); // `pad` is not an input of the tool: refused by its schema, after the parse
    // A body that does not say what it is in its first 64 KiB gets 64 KiB.
    const late = `{"params":{"pad":"${'w'.repeat(PROTOCOL_BODY_BYTES)}"},"jsonrpc":"2.0","id":4,"method":"tools/call"}`;
    const refused = await post(server.url, '/api/mcp', late, { key });
    expect(refused.status).toBe(413);
    expect(refused.body.error.message).toMatch(/do not name its method; put "method" \(and params.name for tools\/call\) before large fields/);
  });

  it('refuses a tool call over its tool limit as 413 before parsing, naming the limit', async () => {
    const pad = 'q'.repeat(SOLVE_BODY_BYTES + PROTOCOL_BODY_BYTES);
    const body = `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"core_solve","arguments":{"id":"linear-lu","inputs":{"pad":"${pad}"}} not json`;
    const res = await post(server.url, '/api/mcp', body, { key });
    expect(res.status).toBe(413);
    expect(res.body.error.message).toBe('The request body exceeds 7.06 MiB, the limit for core_solve');
  });

  it('lets the 2026-07-28 headers lower the limit, never raise it past what the body names', async () => {
    const meta = { 'io.modelcontextprotocol/protocolVersion': MODERN, pad: 'p'.repeat(200_000) };
    const discover = JSON.stringify({ jsonrpc: '2.0', id: 6, method: 'server/discover', params: { _meta: meta } });
    // The header claims a large tool call; the body is a discover: the body's method sets the limit.
    const res = await post(server.url, '/api/mcp', discover, {
      key,
      extra: { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': 'core_solve' },
    });
    expect(res.status).toBe(413);
    expect(res.body.error.data.limit_bytes).toBe(PROTOCOL_BODY_BYTES);
    // A declared length over what the header's method allows is refused before a byte of the body is sent.
    const early = await post(server.url, '/api/mcp', undefined, {
      key,
      declared: 5_000_000,
      extra: { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/list' },
    });
    expect(early.status).toBe(413);
    expect(early.body.error.message).toMatch(/the limit for tools\/list/);
  });

  it('caps callers without a key at 1 MiB per tool call on REST too, saying how to send more', async () => {
    const res = await post(server.url, '/api/solvers/linear-lu/solve', `{"inputs":{"pad":"${'r'.repeat(2 ** 21)}"} not json`);
    expect(res.status).toBe(413);
    expect(res.body.error.message).toBe(
      'The request body exceeds 1 MiB, the limit without a key; send a key (mint one with POST /api/demo-key/mint) to send up to 7 MiB',
    );
  });
});

describe('the rate limiter runs before the body is read', () => {
  // Two requests a burst and practically no refill: the third is over the rate however long the test takes.
  const server = useServer({ CORE_RATE_LIMIT: '0.001/2' });

  it('answers 429 to anonymous MCP and REST requests over the rate without reading or parsing their bodies', async () => {
    const ping = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
    expect((await post(server.url, '/api/mcp', ping)).status).toBe(200);
    expect((await post(server.url, '/api/mcp', ping)).status).toBe(200);
    // Invalid JSON: answered 429, not 400, so it was not parsed.
    const mcp = await post(server.url, '/api/mcp', '{"jsonrpc":"2.0","id":1,"method":"server/discover",');
    expect(mcp.status).toBe(429);
    expect(mcp.headers['retry-after']).toBeDefined();
    expect(mcp.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32000, data: { code: 'RATE_LIMITED' } } });
    const rest = await post(server.url, '/api/demo-key/mint', '{"label": ');
    expect(rest.status).toBe(429);
    expect(rest.body.error.code).toBe('RATE_LIMITED');
    // Headers only, a 5 MB body announced and never sent: the answer comes without it.
    const unsent = await post(server.url, '/api/mcp', undefined, { declared: 5_000_000 });
    expect(unsent.status).toBe(429);
    expect(unsent.headers.connection).toBe('close');
  });
});
