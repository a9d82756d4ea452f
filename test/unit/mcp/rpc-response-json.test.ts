import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonResult, rpcResponseJson } from '../../../src/transports/mcp/call-tool.js';
import { modernResult, serverInfoOf } from '../../../src/transports/mcp/modern-era.js';

const id = fc.oneof(fc.integer(), fc.string());
const answer = fc.dictionary(fc.string(), fc.jsonValue());

describe('rpcResponseJson', () => {
  it('writes exactly the bytes JSON.stringify writes for a tools/call answer', () => {
    fc.assert(
      fc.property(id, answer, (i, value) => {
        const message = { jsonrpc: '2.0', id: i, result: jsonResult(value) };
        expect(rpcResponseJson(message)).toBe(JSON.stringify(message));
      }),
    );
  });

  it('writes exactly the bytes JSON.stringify writes for a tools/call answer stamped for the modern era', () => {
    fc.assert(
      fc.property(id, answer, (i, value) => {
        const message = { jsonrpc: '2.0', id: i, result: modernResult('tools/call', jsonResult(value), serverInfoOf('1.2.3'), false) };
        const text = rpcResponseJson(message);
        expect(text).toBe(JSON.stringify(message));
        expect(JSON.parse(text).result.resultType).toBe('complete');
      }),
    );
  });

  it('serializes anew whatever is not an untouched jsonResult answer', () => {
    const extraKey = jsonResult({ ok: true });
    (extraKey as Record<string, unknown>).isError = false;
    const extraItem = jsonResult({ ok: true });
    extraItem.content.push({ type: 'text', text: 'more' });
    const messages = [
      { jsonrpc: '2.0', id: 1, result: extraKey },
      { jsonrpc: '2.0', id: 1, result: extraItem },
      { id: 1, jsonrpc: '2.0', result: jsonResult({ ok: true }) },
      { jsonrpc: '2.0', id: 1, result: jsonResult([1, 2]) },
      { jsonrpc: '2.0', id: 1, result: { content: [], structuredContent: {} } },
      { jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'bad' } },
    ];
    for (const message of messages) expect(rpcResponseJson(message)).toBe(JSON.stringify(message));
  });
});
