import { describe, expect, it } from 'vitest';
import { useServer } from '../helpers/use-server.js';

/** Each MUST of revision 2026-07-28 on `POST /api/mcp`, one raw request at a time. */
const server = useServer();
const narrowed = useServer({ CORE_TOOLSETS: 'compute' });

const VERSION = '2026-07-28';
const META = {
  'io.modelcontextprotocol/protocolVersion': VERSION,
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};
const NAME_FIELD: Record<string, string> = { 'tools/call': 'name', 'prompts/get': 'name', 'resources/read': 'uri' };

/** A modern request with every header the revision wants, unless `headers` overrides or (with undefined) drops one. */
async function modern(method: string, params: Record<string, unknown> = {}, headers: Record<string, string | undefined> = {}, target = server) {
  const field = NAME_FIELD[method];
  const all: Record<string, string | undefined> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': VERSION,
    'mcp-method': method,
    ...(field ? { 'mcp-name': String(params[field]) } : {}),
    ...headers,
  };
  const res = await fetch(`${target.url}/api/mcp`, {
    method: 'POST',
    headers: Object.fromEntries(Object.entries(all).filter((e): e is [string, string] => e[1] !== undefined)),
    body: JSON.stringify({ jsonrpc: '2.0', id: 42, method, params: { _meta: META, ...params } }),
  });
  return { status: res.status, body: (await res.json()) as any };
}

describe('server/discover', () => {
  it('answers the modern versions, capabilities, instructions, server info and cache hints', async () => {
    const { status, body } = await modern('server/discover');
    expect(status).toBe(200);
    expect(body.id).toBe(42);
    expect(body.result).toMatchObject({
      resultType: 'complete',
      supportedVersions: [VERSION],
      capabilities: { tools: {}, resources: {}, prompts: {} },
      ttlMs: expect.any(Number),
      cacheScope: 'public',
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'core-server', version: expect.any(String) } },
    });
    expect(body.result.instructions).toContain('core_account');
  });
});

describe('results of the modern era', () => {
  it('carry resultType on every result, and ttlMs and cacheScope on the cacheable ones', async () => {
    const tools = (await modern('tools/list')).body.result;
    expect(tools).toMatchObject({ resultType: 'complete', ttlMs: 300_000, cacheScope: 'public' });
    expect(tools.tools).toHaveLength(57);
    for (const method of ['prompts/list', 'resources/list', 'resources/templates/list']) {
      const result = (await modern(method)).body.result;
      expect(result.resultType).toBe('complete');
      expect(Number.isInteger(result.ttlMs) && result.ttlMs >= 0).toBe(true);
      expect(result.cacheScope).toBe('public');
    }
    const uri = (await modern('resources/list')).body.result.resources[0].uri;
    const read = (await modern('resources/read', { uri })).body.result;
    expect(read).toMatchObject({ resultType: 'complete', ttlMs: 0, cacheScope: 'public' });
    const call = (await modern('tools/call', { name: 'core_constants', arguments: { action: 'get', key: 'h' } })).body.result;
    expect(call).toMatchObject({ resultType: 'complete', structuredContent: { ok: true } });
    expect(call.ttlMs).toBeUndefined();
    expect(call._meta['io.modelcontextprotocol/serverInfo'].name).toBe('core-server');
    const prompt = (await modern('prompts/get', { name: 'core_kernel' })).body.result;
    expect(prompt.resultType).toBe('complete');
  });

  it('mark the tool list private when the server narrows it by its settings', async () => {
    const { body } = await modern('tools/list', {}, {}, narrowed);
    expect(body.result.cacheScope).toBe('private');
    expect(body.result.tools.length).toBeLessThan(57);
  });

  it('answer an unknown resource with -32602, not the retired -32002, naming the uri in data', async () => {
    const { status, body } = await modern('resources/read', { uri: 'core://nowhere' });
    expect(status).toBe(200);
    expect(body.error.code).toBe(-32602);
    expect(body.error.data).toEqual({ uri: 'core://nowhere' });
  });
});

describe('a modern request refused', () => {
  it('is -32602 and 400 without _meta, without its protocol version or without client capabilities', async () => {
    const bare = await fetch(`${server.url}/api/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'mcp-protocol-version': VERSION, 'mcp-method': 'tools/list' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/list', params: {} }),
    });
    expect(bare.status).toBe(400);
    expect(await bare.json()).toMatchObject({ id: 5, error: { code: -32602 } });
    for (const drop of ['io.modelcontextprotocol/protocolVersion', 'io.modelcontextprotocol/clientCapabilities']) {
      const _meta: Record<string, unknown> = { ...META };
      delete _meta[drop];
      const res = await fetch(`${server.url}/api/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'mcp-protocol-version': VERSION, 'mcp-method': 'tools/list' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 6, method: 'tools/list', params: { _meta } }),
      });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ id: 6, error: { code: -32602 } });
    }
  });

  it('is -32022 and 400 for a version not spoken, naming the supported ones and echoing the requested one', async () => {
    const res = await fetch(`${server.url}/api/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'mcp-protocol-version': 'v999.0.0', 'mcp-method': 'server/discover' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'server/discover',
        params: { _meta: { ...META, 'io.modelcontextprotocol/protocolVersion': 'v999.0.0' } },
      }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ id: 7, error: { code: -32022, data: { supported: [VERSION], requested: 'v999.0.0' } } });
  });

  it('is -32020 and 400 when MCP-Protocol-Version is missing or differs from _meta', async () => {
    for (const version of [undefined, '2025-11-25']) {
      const { status, body } = await modern('tools/list', {}, { 'mcp-protocol-version': version });
      expect(status).toBe(400);
      expect(body).toMatchObject({ id: 42, error: { code: -32020 } });
    }
  });

  it('is -32020 and 400 when Mcp-Method is missing, differs, or differs in case', async () => {
    for (const method of [undefined, 'prompts/list', 'TOOLS/LIST']) {
      const { status, body } = await modern('tools/list', {}, { 'mcp-method': method });
      expect(status).toBe(400);
      expect(body.error.code).toBe(-32020);
    }
  });

  it('is -32020 and 400 when Mcp-Name is missing or names another tool, resource or prompt', async () => {
    const cases: [string, Record<string, unknown>][] = [
      ['tools/call', { name: 'core_constants', arguments: { action: 'get', key: 'h' } }],
      ['resources/read', { uri: 'core://kernel/prompt' }],
      ['prompts/get', { name: 'core_kernel' }],
    ];
    for (const [method, params] of cases) {
      for (const name of [undefined, 'something_else']) {
        const { status, body } = await modern(method, params, { 'mcp-name': name });
        expect(status).toBe(400);
        expect(body.error.code).toBe(-32020);
      }
    }
  });

  it('accepts Mcp-Name in the Base64 form and with surrounding whitespace', async () => {
    const params = { name: 'core_constants', arguments: { action: 'get', key: 'h' } };
    const encoded = await modern('tools/call', params, { 'mcp-name': `=?base64?${Buffer.from('core_constants').toString('base64')}?=` });
    expect(encoded.body.result.isError).toBeFalsy();
    const spaced = await modern('tools/call', params, { 'mcp-name': '  core_constants  ' });
    expect(spaced.body.result.isError).toBeFalsy();
    const broken = await modern('tools/call', params, { 'mcp-name': '=?base64?!!!?=' });
    expect(broken.body.error.code).toBe(-32020);
  });

  it('is 404 with -32601 for an unknown method and for the methods the revision removed', async () => {
    for (const method of ['unknown/method', 'initialize', 'ping', 'logging/setLevel', 'resources/subscribe']) {
      const { status, body } = await modern(method);
      expect(status).toBe(404);
      expect(body).toMatchObject({ id: 42, error: { code: -32601 } });
    }
  });

  it('is 405 for GET and DELETE', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(`${server.url}/api/mcp`, { method, headers: { 'mcp-protocol-version': VERSION } });
      expect(res.status).toBe(405);
    }
  });
});

describe('the legacy era beside it', () => {
  it('still answers initialize on each legacy version, and plain requests without resultType', async () => {
    for (const protocolVersion of ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05']) {
      const res = await fetch(`${server.url}/api/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion, capabilities: {}, clientInfo: { name: 't', version: '1' } },
        }),
      });
      expect((await res.json()).result.protocolVersion).toBe(protocolVersion);
    }
    const list = await fetch(`${server.url}/api/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    const result = (await list.json()).result;
    expect(result.tools).toHaveLength(57);
    expect(result.resultType).toBeUndefined();
    expect(result.ttlMs).toBeUndefined();
  });
});
