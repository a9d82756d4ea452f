import { describe, expect, it } from 'vitest';
import { mintKey } from '../helpers/server.js';
import { useServer } from '../helpers/use-server.js';

const server = useServer();

describe('X-API-Key', () => {
  it('carries a key as Authorization: Bearer does, on REST and on MCP', async () => {
    const { key, uid } = await mintKey(server);
    const rest = await server.call('GET', '/api/whoami', { headers: { 'x-api-key': key } });
    expect(rest.status).toBe(200);
    expect(rest.body.uid).toBe(uid);
    const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'core_account', arguments: { action: 'whoami' } } };
    const mcp = await server.call('POST', '/api/mcp', {
      headers: { 'x-api-key': key, accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
      body: call,
    });
    expect(mcp.status).toBe(200);
    expect(mcp.body.result.structuredContent.uid).toBe(uid);
  });

  it('is refused like a bearer key when unknown, and Authorization wins when both are sent', async () => {
    const { key, uid } = await mintKey(server);
    const unknown = await server.call('POST', '/api/chain/state-machines', {
      headers: { 'x-api-key': 'core_not_a_key_of_this_server' },
      body: { slug: 'xk-1' },
    });
    expect(unknown.status).toBe(401);
    const both = await server.call('GET', '/api/whoami', { key, headers: { 'x-api-key': 'core_not_a_key_of_this_server' } });
    expect(both.body.uid).toBe(uid);
  });
});
