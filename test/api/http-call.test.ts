import { describe, expect, it } from 'vitest';
import { useServer } from '../helpers/use-server.js';

// core_http refuses to run itself by the operation the router matched, not by the path as written:
// each spelling below reaches the route of core_http.

const server = useServer();

const SELF_SPELLINGS = ['/api/http', '/api/%68ttp', '/api/%68%74%74%70', '/api/http/', '/api/./http', '/api/pulse/../http', '/api/http/.', '/api/http?x=1'];
/** Spellings the router matches to no route at all. */
const NO_ROUTE_SPELLINGS = ['/api//http', '/api/HTTP', '/api/Http/', '/api%2Fhttp', '/api/http%2F', '/api/http//'];
const inner = { method: 'GET', path: '/api/pulse' };

describe('core_http calling itself', () => {
  it.each(SELF_SPELLINGS)('refuses %s over REST with 400 and says why', async (path) => {
    const res = await server.call('POST', '/api/http', { body: { method: 'POST', path, body: inner } });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringMatching(/cannot call itself/) });
  });

  it('refuses the escaped spelling over MCP as an isError result', async () => {
    const res = await server.call('POST', '/api/mcp', {
      headers: { accept: 'application/json' },
      body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'core_http', arguments: { method: 'POST', path: '/api/%68ttp', body: inner } } },
    });
    expect(res.status).toBe(200);
    expect(res.body.result.isError).toBe(true);
    expect(res.body.result.structuredContent.error).toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringMatching(/cannot call itself/) });
  });

  it.each(NO_ROUTE_SPELLINGS)('never runs itself through %s either: no route matches it', async (path) => {
    const res = await server.call('POST', '/api/http', { body: { method: 'POST', path, body: inner } });
    expect([400, 404]).toContain(res.status);
    expect(res.body.pulse_hz).toBeUndefined();
  });

  it('still runs other operations, escaped spellings included', async () => {
    const pulse = await server.call('POST', '/api/http', { body: inner });
    expect(pulse.status).toBe(200);
    expect(pulse.body.pulse_hz).toBe(1.287);
    const escaped = await server.call('POST', '/api/http', { body: { method: 'GET', path: '/api/%70ulse' } });
    expect(escaped.status).toBe(200);
    expect(escaped.body.pulse_hz).toBe(1.287);
  });
});
