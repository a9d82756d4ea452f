import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { createMachine, mintKey } from '../helpers/server.js';
import { useServer } from '../helpers/use-server.js';

let key: string;

const server = useServer();
beforeAll(async () => {
  ({ key } = await mintKey(server));
});

async function connect(bearer?: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/api/mcp`), {
    requestInit: bearer ? { headers: { Authorization: `Bearer ${bearer}` } } : {},
  });
  const client = new Client({ name: 'e2e-http', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

interface RpcResponse {
  status: number;
  headers: Headers;
  json(): Promise<any>;
}

function rpc(body: unknown, headers: Record<string, string> = {}): Promise<RpcResponse> {
  return fetch(`${server.url}/api/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(body),
  });
}

describe('MCP over POST /api/mcp', () => {
  it('initializes with the latest protocol and lists the 57 tools', async () => {
    const client = await connect(key);
    try {
      expect(client.getServerVersion()?.name).toBe('core-server');
      const { tools } = await client.listTools();
      expect(tools).toHaveLength(57);
      expect(tools.every((t) => t.inputSchema.type === 'object')).toBe(true);
    } finally {
      await client.close();
    }
  });

  it('negotiates older protocol versions and answers the latest for an unknown one', async () => {
    const init = (protocolVersion: string) =>
      rpc({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion, capabilities: {}, clientInfo: { name: 't', version: '1' } } });
    expect((await (await init('2025-03-26')).json()).result.protocolVersion).toBe('2025-03-26');
    expect((await (await init('2024-11-05')).json()).result.protocolVersion).toBe('2024-11-05');
    expect((await (await init('1999-01-01')).json()).result.protocolVersion).toBe(LATEST_PROTOCOL_VERSION);
    expect(LATEST_PROTOCOL_VERSION).toBe('2025-11-25');
  });

  it('answers GET with 405, a foreign Origin with 403, a batch with -32600 and a notification with 202', async () => {
    const get = await fetch(`${server.url}/api/mcp`);
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    const foreign = await rpc({ jsonrpc: '2.0', id: 1, method: 'ping' }, { origin: 'https://evil.example' });
    expect(foreign.status).toBe(403);
    const local = await rpc({ jsonrpc: '2.0', id: 1, method: 'ping' }, { origin: 'http://localhost:3000' });
    expect(local.status).toBe(200);
    const batch = await rpc([{ jsonrpc: '2.0', id: 1, method: 'ping' }]);
    expect(batch.status).toBe(400);
    expect((await batch.json()).error.code).toBe(-32600);
    const note = await rpc({ jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(note.status).toBe(202);
    const junk = await rpc({ hello: 'world' });
    expect(junk.status).toBe(400);
    const unknownMethod = await (await rpc({ jsonrpc: '2.0', id: 7, method: 'nope/nope' })).json();
    expect(unknownMethod.error.code).toBe(-32601);
    const unknownTool = await (await rpc({ jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'core_nope', arguments: {} } })).json();
    expect(unknownTool.error.code).toBe(-32602);
    const badVersion = await rpc({ jsonrpc: '2.0', id: 1, method: 'ping' }, { 'mcp-protocol-version': '1999-01-01' });
    expect(badVersion.status).toBe(400);
  });

  it('returns equal data for one operation through REST, its domain tool and core_http', async () => {
    await createMachine(server, key, { slug: 'same-data', isPublic: true });
    await server.call('POST', '/api/chain/same-data/event', { key, body: { type: 't', payload: { x: 1 } } });
    const client = await connect(key);
    try {
      const rest = (await server.call('GET', '/api/chain/same-data/activity?limit=10', { key })).body;
      const tool = (await client.callTool({ name: 'core_activity', arguments: { action: 'activity', slug: 'same-data', limit: 10 } })).structuredContent;
      const http = (await client.callTool({ name: 'core_http', arguments: { method: 'GET', path: '/api/chain/same-data/activity', query: { limit: 10 } } }))
        .structuredContent;
      expect(tool).toEqual(rest);
      expect(http).toEqual(rest);

      const constRest = (await server.call('GET', '/api/constants/m_e')).body;
      const constHttp = (await client.callTool({ name: 'core_http', arguments: { method: 'GET', path: '/api/constants/m_e' } })).structuredContent;
      expect(constHttp).toEqual(constRest);
    } finally {
      await client.close();
    }
  });

  it('makes core_http validate against the target schema first and pass on the callee errors', async () => {
    const client = await connect();
    try {
      const invalid = await client.callTool({ name: 'core_http', arguments: { method: 'GET', path: '/api/constants', query: { limit: 'lots' } } });
      expect(invalid.isError).toBe(true);
      expect((invalid.structuredContent as any).error.details.issues[0].path).toBe('limit');
      const anonymousWrite = await client.callTool({ name: 'core_http', arguments: { method: 'POST', path: '/api/chain/same-data/event', body: {} } });
      expect((anonymousWrite.structuredContent as any).error.code).toBe('UNAUTHENTICATED');
      const missing = await client.callTool({ name: 'core_http', arguments: { method: 'GET', path: '/api/nowhere' } });
      expect((missing.structuredContent as any).error.code).toBe('NOT_FOUND');
    } finally {
      await client.close();
    }
  });

  it('finds operations through core_api_catalog by text, tag, method and path, with input schemas', async () => {
    const client = await connect();
    try {
      const byText = (await client.callTool({ name: 'core_api_catalog', arguments: { action: 'search', q: 'append event', include_schemas: true } }))
        .structuredContent as any;
      const hit = byText.endpoints.find((e: { id: string }) => e.id === 'chain.appendEvent');
      expect(hit).toMatchObject({ method: 'POST', path: '/api/chain/{slug}/event', auth: 'bearer', tool: 'core_chain_write', action: 'append_event' });
      expect(hit.input_schema.properties.slug).toBeDefined();
      const byTag = (await client.callTool({ name: 'core_api_catalog', arguments: { action: 'search', tag: 'agents' } })).structuredContent as any;
      expect(byTag.count).toBe(24);
      const byPath = (await client.callTool({ name: 'core_api_catalog', arguments: { action: 'search', path: '/api/chain/demo/event', method: 'POST' } }))
        .structuredContent as any;
      expect(byPath.endpoints.map((e: { id: string }) => e.id)).toEqual(['chain.appendEvent']);
    } finally {
      await client.close();
    }
  });

  it('offers the catalogue as resources and refuses an unknown resource with -32002', async () => {
    const client = await connect();
    try {
      const { resources } = await client.listResources();
      expect(resources.map((r) => r.uri)).toEqual(expect.arrayContaining(['core://catalog/endpoints', 'core://catalog/openapi']));
      const read = await client.readResource({ uri: 'core://catalog/endpoints' });
      const first = read.contents[0] as { text: string };
      expect(JSON.parse(first.text)).toHaveLength(server.core.registry.operations.length + 1);
      const missing = await (await rpc({ jsonrpc: '2.0', id: 9, method: 'resources/read', params: { uri: 'core://nope' } })).json();
      expect(missing.error.code).toBe(-32002);
      expect(missing.error.data).toEqual({ uri: 'core://nope' });
      expect(resources.map((r) => r.uri)).toEqual(
        expect.arrayContaining(['core://solvers/catalog', 'core://operators/categories', 'core://operators/newtonian_mechanics', 'core://kernel/prompt']),
      );
      expect(resources.filter((r) => r.uri.startsWith('core://skills/')).length).toBeGreaterThanOrEqual(8);
      const nm = JSON.parse(((await client.readResource({ uri: 'core://operators/newtonian_mechanics' })).contents[0] as { text: string }).text);
      expect(nm.map((o: { id: string }) => o.id)).toContain('NM19');
      const prompts = await client.listPrompts();
      expect(prompts.prompts.map((p) => p.name)).toContain('core_kernel');
      const kernel = await client.getPrompt({ name: 'core_kernel' });
      expect((kernel.messages[0]!.content as { text: string }).text.length).toBeGreaterThan(500);
    } finally {
      await client.close();
    }
  });
});
