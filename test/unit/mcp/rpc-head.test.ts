import { describe, expect, it } from 'vitest';
import { scanRpcHead } from '../../../src/transports/mcp/rpc-head.js';

const scan = (text: string) => scanRpcHead(Buffer.from(text));

describe('scanRpcHead: the method and tool a JSON-RPC body names in its first bytes', () => {
  it('reads the top-level method and params.name wherever they sit among the keys', () => {
    expect(scan('{"method":"tools/call","params":{"name":"core_solve","arguments":{}},"jsonrpc":"2.0","id":1}')).toEqual({
      method: 'tools/call',
      name: 'core_solve',
    });
    expect(scan('{ "jsonrpc" : "2.0", "id": 1, "params" : { "arguments": {"name": "inner"}, "name" : "core_http" }, "method" : "tools/call" }')).toEqual({
      method: 'tools/call',
      name: 'core_http',
    });
  });

  it('ignores method and name keys nested deeper, and strings that only look like keys', () => {
    const text = '{"params":{"_meta":{"method":"tools/call","name":"x"},"arguments":["\\"method\\":\\"tools/call\\""]},"method":"server/discover"}';
    expect(scan(text)).toEqual({ method: 'server/discover' });
  });

  it('decodes escaped keys and values as JSON.parse does', () => {
    expect(scan('{"\\u006dethod":"tools\\/call","params":{"n\\u0061me":"core_solve"}}')).toEqual({ method: 'tools/call', name: 'core_solve' });
  });

  it('knows nothing from a head that ends before the method, or inside a string', () => {
    expect(scan('{"jsonrpc":"2.0","params":{"_meta":{"pad":"xxxx')).toEqual({});
    expect(scan('{"method":"tools/ca')).toEqual({});
  });

  it('treats a key given twice with different values as unknown (JSON.parse keeps the last one)', () => {
    expect(scan('{"method":"tools/call","method":"server/discover"}')).toEqual({});
    expect(scan('{"method":"tools/call","params":{"name":"core_solve"},"params":{"name":"core_verify"}}')).toEqual({ method: 'tools/call' });
    expect(scan('{"method":"ping","method":"ping"}')).toEqual({ method: 'ping' });
  });

  it('never throws on what is not JSON', () => {
    for (const text of ['', ']]]}}}', '"', '{"method":', '[{"method":"ping"}]', '\u0000\uffff{']) expect(() => scan(text)).not.toThrow();
    expect(scan('[{"method":"ping"}]')).toEqual({});
  });
});
