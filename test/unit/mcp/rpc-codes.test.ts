import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../../src/lib/paths.js';
import { RPC_ERROR } from '../../../src/transports/mcp/rpc-codes.js';
import { sourceFiles } from '../../helpers/source-files.js';

const CODE_LITERAL = /(?<![\w.])-32\d{3}\b/;

describe('JSON-RPC error codes', () => {
  it('are the numbers JSON-RPC 2.0 and the MCP SDK give them', () => {
    expect(RPC_ERROR.INVALID_REQUEST).toBe(ErrorCode.InvalidRequest);
    expect(RPC_ERROR.METHOD_NOT_FOUND).toBe(ErrorCode.MethodNotFound);
    expect(RPC_ERROR.INVALID_PARAMS).toBe(ErrorCode.InvalidParams);
    // JSON-RPC 2.0 leaves -32000..-32099 to the implementation: our transport refusals and the modern era's codes.
    for (const code of [RPC_ERROR.REFUSED, RPC_ERROR.HEADER_MISMATCH, RPC_ERROR.UNSUPPORTED_PROTOCOL_VERSION])
      expect(code <= -32000 && code >= -32099).toBe(true);
    expect(new Set(Object.values(RPC_ERROR)).size).toBe(Object.keys(RPC_ERROR).length);
  });

  it('are written as numbers only in the table: code elsewhere names them', () => {
    const table = path.join(packageRoot(), 'src', 'transports', 'mcp', 'rpc-codes.ts');
    const literals = sourceFiles(path.join(packageRoot(), 'src'))
      .filter((file) => file !== table)
      .flatMap((file) =>
        readFileSync(file, 'utf8')
          .split('\n')
          .map((line, i) => ({ line, at: `${path.relative(packageRoot(), file)}:${i + 1}` }))
          .filter(({ line }) => !/^\s*(\/\/|\*|\/\*)/.test(line) && CODE_LITERAL.test(line))
          .map(({ at, line }) => `${at}: ${line.trim()}`),
      );
    expect(literals).toEqual([]);
    expect(CODE_LITERAL.test("return rpcError(400, null, -32600, 'Invalid Request');")).toBe(true);
  });
});
