import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { useServer } from '../helpers/use-server.js';

// Request bodies take one of two readers (src/transports/http/json-body.ts): a lean one for plain
// UTF-8 JSON with a length, body-parser for everything else. Both must give the same answers.

const server = useServer();

/** A POST sent with `Transfer-Encoding: chunked` (no Content-Length), as streaming clients do. */
function postChunked(path: string, parts: string[], type = 'application/json'): Promise<{ status: number; body: any }> {
  const url = new URL(path, server.url);
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { 'content-type': type } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    for (const part of parts) req.write(part);
    req.end();
  });
}

const PLAIN_TYPES = ['application/json', 'application/json; charset=utf-8', 'Application/JSON;charset=UTF-8'];
const OTHER_TYPES = ['application/vnd.core+json', 'application/json; charset="utf-8"', 'application/json ; charset=utf-8'];

describe('JSON request bodies', () => {
  it.each([...PLAIN_TYPES, ...OTHER_TYPES])('reads a body sent as %s', async (type) => {
    const res = await server.call('POST', '/api/demo-key/mint', { body: { label: 'caf\u00e9 \u2713' }, headers: { 'content-type': type } });
    expect(res.status).toBe(200);
    expect(res.body.key).toMatch(/^core_/);
  });

  it.each([...PLAIN_TYPES, ...OTHER_TYPES])('refuses malformed JSON sent as %s with 400 and the invalid_json issue', async (type) => {
    const res = await server.call('POST', '/api/demo-key/mint', { body: '{"label": ', headers: { 'content-type': type } });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
    expect(res.body.error.details.issues[0]).toMatchObject({ path: '(body)', code: 'invalid_json' });
  });

  it('reads a body after a byte order mark, and a chunked body without a length', async () => {
    const bom = await server.call('POST', '/api/demo-key/mint', { body: '\ufeff{"label":"bom"}' });
    expect(bom.status).toBe(200);
    const chunked = await postChunked('/api/demo-key/mint', ['{"lab', 'el":"chunked"}']);
    expect(chunked.status).toBe(200);
    expect(chunked.body.key).toMatch(/^core_/);
    const brokenChunked = await postChunked('/api/demo-key/mint', ['{"label"', ':']);
    expect(brokenChunked.status).toBe(400);
  });

  it('answers 413 for a body over 1 MiB and 415 for a charset JSON cannot be in', async () => {
    const big = await server.call('POST', '/api/demo-key/mint', { body: { label: 'x'.repeat(1024 * 1024) } });
    expect(big.status).toBe(413);
    expect(big.body.error.code).toBe('PAYLOAD_TOO_LARGE');
    const odd = await server.call('POST', '/api/demo-key/mint', { body: '{}', headers: { 'content-type': 'application/json; charset=klingon' } });
    expect(odd.status).toBe(415);
  });
});

describe('JSON-RPC messages on POST /api/mcp', () => {
  const mcp = (body: unknown) => server.call('POST', '/api/mcp', { body, headers: { accept: 'application/json, text/event-stream' } });
  const constants = { name: 'core_constants', arguments: { action: 'get', key: 'h' } };

  it('answers a plain tools/call and one whose params carry _meta alike', async () => {
    const plain = await mcp({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: constants });
    const meta = await mcp({ jsonrpc: '2.0', id: 'a', method: 'tools/call', params: { ...constants, _meta: { progressToken: 7 } } });
    expect(plain.status).toBe(200);
    expect(meta.status).toBe(200);
    expect(meta.body.result.structuredContent).toEqual(plain.body.result.structuredContent);
    expect([plain.body.id, meta.body.id]).toEqual([1, 'a']);
  });

  it('refuses what the SDK schema refuses: unknown top-level members, a fractional id, a wrong version', async () => {
    for (const body of [
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: constants, extra: true },
      { jsonrpc: '2.0', id: 1.5, method: 'tools/call', params: constants },
      { jsonrpc: '1.0', id: 1, method: 'tools/call', params: constants },
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: [constants] },
    ]) {
      const res = await mcp(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe(-32600);
    }
  });

  it('refuses tools/call params without a name or with arguments that are not an object', async () => {
    for (const params of [{ arguments: {} }, { name: 'core_constants', arguments: ['get'] }, { name: 7 }]) {
      const res = await mcp({ jsonrpc: '2.0', id: 2, method: 'tools/call', params });
      expect(res.status).toBe(200);
      expect(res.body.error.code).toBe(-32602);
    }
  });
});
