import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { SOLVE_BODY_BYTES, solveBodyBytes } from '../../src/domain/solvers/body-bytes.js';
import { SOLVERS } from '../../src/domain/solvers/catalog/index.js';
import { useServer } from '../helpers/use-server.js';
import { mintKey } from '../helpers/server.js';

// A solver's declared inputs and the HTTP body limit must agree: linear-lu takes up to 400×400, which is
// 3-4 MB of JSON, four times the node's default 1 MiB limit.

// The larger declared limits are for callers with a key (a caller without one gets 1 MiB: mcp-body-bounds.test.ts).
let key: string;
const server = useServer();
beforeAll(async () => {
  key = (await mintKey(server)).key;
});

/** linear-lu's largest declared input, each number written at full length (about 3.8 MB): diagonally dominant, x = all ones. */
function largestLuInput() {
  const n = SOLVERS.find((s) => s.id === 'linear-lu')!.inputs.find((i) => i.name === 'A')!.max_items!;
  // eslint-disable-next-line no-loss-of-precision -- written at full length on purpose: the body's size is the point.
  const fullLength = -1.2345678901234567e-5;
  const A = Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => (i === j ? 2 * n : fullLength * (1 + ((i * 7 + j * 13) % 10)))));
  const b = A.map((row) => row.reduce((s, x) => s + x, 0));
  return { n, A, b };
}

describe('request body limits that follow the declared inputs', () => {
  it("gives the solve operation a limit that holds every solver's largest input at full-length numbers", () => {
    for (const solver of SOLVERS) expect(solveBodyBytes(solver), solver.id).toBeLessThanOrEqual(SOLVE_BODY_BYTES);
  });

  it("solves linear-lu's largest declared input (400×400) over REST, a body well over 1 MiB", async () => {
    const { n, A, b } = largestLuInput();
    const body = JSON.stringify({ inputs: { A, b } });
    expect(body.length).toBeGreaterThan(3 * 2 ** 20);
    const res = await server.call('POST', '/api/solvers/linear-lu/solve', { key, body });
    expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(200);
    expect(res.body.result.x).toHaveLength(n);
    for (const x of res.body.result.x) expect(Math.abs(x - 1)).toBeLessThan(1e-12);
  });

  it('solves the same input through MCP tools/call on POST /api/mcp', async () => {
    const { n, A, b } = largestLuInput();
    const client = new Client({ name: 'body-limits', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/api/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
    try {
      const result = await client.callTool({ name: 'core_solve', arguments: { id: 'linear-lu', inputs: { A, b } } });
      expect(result.isError, JSON.stringify(result.content).slice(0, 300)).toBeFalsy();
      const x = (result.structuredContent as { result: { x: number[] } }).result.x;
      expect(x).toHaveLength(n);
    } finally {
      await client.close();
    }
  });

  it('still refuses a body over 1 MiB on an operation that declares no larger limit, naming the limit', async () => {
    const res = await server.call('POST', '/api/demo-key/mint', { body: { label: 'x'.repeat(2 * 2 ** 20) } });
    expect(res.status).toBe(413);
    expect(res.body.error).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', message: 'The request body exceeds 1 MiB' });
  });

  it('refuses a solve body over the solve limit with 413 naming that limit', async () => {
    const res = await server.call('POST', '/api/solvers/linear-lu/solve', { key, body: { inputs: { A: [[1]], b: [1], pad: 'x'.repeat(SOLVE_BODY_BYTES) } } });
    expect(res.status).toBe(413);
    expect(res.body.error.message).toBe(`The request body exceeds ${SOLVE_BODY_BYTES / 2 ** 20} MiB`);
  });
});
