import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { request } from 'node:http';
import { beforeAll, describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../../src/lib/json-depth.js';
import { createMcpServer } from '../../src/transports/mcp/stdio-server.js';
import { spinUp, startTestCore } from '../helpers/server.js';
import { useServer } from '../helpers/use-server.js';

// Deeply nested JSON used to overflow the stack in canonical JSON (`/event`) and merge patch
// (`PATCH .../state`) and answer 500. It is refused as VALIDATION_FAILED before anything walks it.

/** `{"a":{"a":...{"a":1}}}` with `levels` objects. */
function nested(levels: number): Record<string, unknown> {
  let value: Record<string, unknown> = { a: 1 };
  for (let i = 1; i < levels; i++) value = { a: value };
  return value;
}

/** `levels` objects as JSON text, built as text so the test itself never recurses. */
function nestedText(levels: number): string {
  return '{"a":'.repeat(levels - 1) + '{"a":1}' + '}'.repeat(levels - 1);
}

let owner: Awaited<ReturnType<typeof spinUp>>;

const server = useServer();
beforeAll(async () => {
  owner = await spinUp(server, 'deep-json');
});

function expectTooDeep(res: { status: number; body: any }): void {
  expect(res.status).toBe(400);
  expect(res.body.error.code).toBe('VALIDATION_FAILED');
  expect(res.body.error.message).toMatch(new RegExp(`more than ${MAX_JSON_DEPTH} levels deep`));
  expect(res.body.error.details.issues[0]).toMatchObject({ path: '(body)', code: 'too_deep' });
}

/** A chunked POST (no Content-Length), which body-parser reads instead of the lean reader. */
function postChunked(path: string, text: string, key: string): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = request(
      new URL(path, server.url),
      { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` } },
      (res) => {
        let out = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (out += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(out) }));
      },
    );
    req.on('error', reject);
    req.write(text.slice(0, 10));
    req.end(text.slice(10));
  });
}

describe('the nesting depth of JSON bodies', () => {
  it('counts depth without recursion and stops at the limit', () => {
    expect(nestsDeeperThan(nested(MAX_JSON_DEPTH))).toBe(false);
    expect(nestsDeeperThan(nested(MAX_JSON_DEPTH + 1))).toBe(true);
    expect(nestsDeeperThan(JSON.parse(nestedText(100_000)))).toBe(true);
    expect(nestsDeeperThan([[[]]], 2)).toBe(true);
    expect(nestsDeeperThan({ a: [1, { b: 2 }], c: 'x' }, 3)).toBe(false);
    expect(nestsDeeperThan('text')).toBe(false);
  });

  it('refuses a 5,000-level event payload with 400 on the lean and the body-parser path, and takes a 60-level one', async () => {
    const body = `{"type":"deep","payload":${nestedText(5000)}}`;
    expectTooDeep(await server.call('POST', '/api/chain/deep-json/event', { key: owner.key, body }));
    expectTooDeep(await server.call('POST', '/api/chain/deep-json/event', { key: owner.key, body, headers: { 'content-type': 'application/vnd.core+json' } }));
    expectTooDeep(await postChunked('/api/chain/deep-json/event', body, owner.key));
    const fine = await server.call('POST', '/api/chain/deep-json/event', { key: owner.key, body: { type: 'fine', payload: nested(60) } });
    expect(fine.status).toBe(200);
  });

  it('refuses a 5,000-level merge patch of agent state with 400', async () => {
    const body = `{"slug":"deep-json","patch":${nestedText(5000)}}`;
    expectTooDeep(await server.call('PATCH', `/api/agent/${owner.uid}/state`, { key: owner.key, body }));
  });

  it('refuses a deep body sent through core_http, over REST and over MCP', async () => {
    const inner = `{"method":"POST","path":"/api/chain/deep-json/event","body":{"payload":${nestedText(5000)}}}`;
    expectTooDeep(await server.call('POST', '/api/http', { key: owner.key, body: inner }));
    const rpc = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"core_http","arguments":${inner}}}`;
    const res = await server.call('POST', '/api/mcp', { key: owner.key, body: rpc, headers: { accept: 'application/json' } });
    expectTooDeep(res);
  });

  // The SDK client's own validation recurses too, so this one sends 200 levels rather than 5,000.
  it('refuses deep tool arguments over MCP HTTP with the official client', async () => {
    const client = new Client({ name: 'deep', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.url}/api/mcp`), { requestInit: { headers: { Authorization: `Bearer ${owner.key}` } } }),
    );
    try {
      await expect(
        client.callTool({ name: 'core_chain_write', arguments: { action: 'append_event', slug: 'deep-json', payload: nested(200) } }),
      ).rejects.toThrow(/more than 64 levels deep/);
    } finally {
      await client.close();
    }
  });
});

describe('the nesting depth of MCP arguments over stdio', () => {
  it('answers an isError VALIDATION_FAILED result for arguments nested 5,000 levels, and lets 60 levels through', async () => {
    const core = await startTestCore();
    const server = createMcpServer({ surface: core.surface, version: 'test' });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 'deep-stdio', version: '1.0.0' });
    try {
      await server.connect(serverSide);
      await client.connect(clientSide);
      const deep = await client.callTool({ name: 'core_http', arguments: { method: 'POST', path: '/api/compress', body: JSON.parse(nestedText(5000)) } });
      expect(deep.isError).toBe(true);
      expect((deep.structuredContent as any).error).toMatchObject({
        code: 'VALIDATION_FAILED',
        details: { issues: [{ path: 'arguments', code: 'too_deep' }] },
      });
      // 60 levels pass the depth check and reach the pipeline, which wants a key for this write.
      const fine = await client.callTool({ name: 'core_chain_write', arguments: { action: 'append_event', slug: 'deep-json', payload: nested(60) } });
      expect((fine.structuredContent as any).error.code).toBe('UNAUTHENTICATED');
    } finally {
      await client.close();
      await server.close();
      await core.cleanup();
    }
  });
});
