import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintKey } from '../helpers/server.js';
import { useServer } from '../helpers/use-server.js';

let key: string;
let client: Client;
const server = useServer({ CORE_RATE_LIMIT: 'off' });
beforeAll(async () => {
  key = (await mintKey(server)).key;
  client = new Client({ name: 'did-you-mean', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/api/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
});
afterAll(async () => {
  await client.close();
});

const text = (result: Awaited<ReturnType<Client['callTool']>>): string => (result.content as { text: string }[])[0]!.text;

describe('an unknown key close to a known one', () => {
  it('names the field meant over REST: {n: 5} on next_fires points at count', async () => {
    const res = await server.call('GET', '/api/chain/some-machine/contracts/c1/next-fires?n=5', { key });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
    expect(res.body.error.message).toContain('Unrecognized key "n"; did you mean "count"?');
    expect(res.body.error.details.issues[0]).toMatchObject({ path: 'n', code: 'unrecognized_keys', did_you_mean: 'count' });
  });

  it('names the field meant over MCP, as an isError result', async () => {
    const result = await client.callTool({ name: 'core_contract_schedule', arguments: { action: 'next_fires', slug: 'some-machine', id: 'c1', n: 5 } });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('Unrecognized key "n"; did you mean "count"?');
  });

  it('names the field meant through core_http, and a typo by its spelling', async () => {
    const result = await client.callTool({
      name: 'core_http',
      arguments: { method: 'POST', path: '/api/chain/some-machine/event', body: { typ: 'reading', payload: {} } },
    });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('Unrecognized key "typ"; did you mean "type"?');
  });

  it('lists every unknown key as its own issue, suggesting only where one fits', async () => {
    const res = await server.call('POST', '/api/chain/some-machine/event', { key, body: { type: 'reading', paylod: {}, colour: 'red' } });
    expect(res.status).toBe(400);
    const issues = res.body.error.details.issues as { path: string; did_you_mean?: string }[];
    expect(issues.find((i) => i.path === 'paylod')?.did_you_mean).toBe('payload');
    expect(issues.find((i) => i.path === 'colour')).toBeDefined();
    expect(issues.find((i) => i.path === 'colour')?.did_you_mean).toBeUndefined();
  });
});

describe('an unknown action of a multi-action tool', () => {
  it('suggests the nearest action and still lists them all', async () => {
    const result = await client.callTool({ name: 'core_chain_write', arguments: { action: 'apend_event', slug: 'some-machine', type: 'x' } });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(
      /^VALIDATION_FAILED: core_chain_write has no action "apend_event"; did you mean "append_event"\? It must be one of: .*append_event/,
    );
    expect((result.structuredContent as any).error.details.issues[0].did_you_mean).toBe('append_event');
  });

  it('suggests nothing for a name far from every action', async () => {
    const result = await client.callTool({ name: 'core_chain_write', arguments: { action: 'frobnicate', slug: 'some-machine' } });
    expect(result.isError).toBe(true);
    expect(text(result)).not.toContain('did you mean');
    expect(text(result)).toContain('It must be one of:');
  });
});
