import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { createFakeClock } from '../../src/lib/clock.js';
import { createMachine, mintKey, spinUp, type TestServer } from '../helpers/server.js';
import { serverForTest, useServer } from '../helpers/use-server.js';

const LIMITS = 'machines=3,contracts_per_machine=2,devices_per_machine=2,api_keys_per_machine=2';
const clock = createFakeClock();

const server = useServer({ CORE_QUOTAS: `${LIMITS},demo_keys_per_address=off` }, clock);
const definition = (name: string) => ({
  name,
  states: { clean: { initial: true }, quarantined: {} },
  transitions: [
    { from: 'clean', to: 'quarantined', operator: 'KO42', condition: 's_forensic >= 0.9', trigger: { kind: 'on_event', event: 'av.threat.detected' } },
  ],
});

function statuses(answers: Array<{ status: number }>): number[] {
  return answers.map((a) => a.status).sort();
}

async function mcpClient(target: TestServer, key?: string): Promise<Client> {
  const client = new Client({ name: 'quotas', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${target.url}/api/mcp`), key ? { requestInit: { headers: { Authorization: `Bearer ${key}` } } } : {}),
  );
  return client;
}

const errorOf = (result: unknown) => (result as { structuredContent?: { error?: { code: string; message: string; details?: any } } }).structuredContent?.error;

describe('machines per identity', () => {
  it('lets one identity create exactly its quota of machines when it asks in parallel, with a 429 that says which quota and how to get more', async () => {
    const user = await mintKey(server);
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) => server.call('POST', '/api/chain/state-machines', { key: user.key, body: { slug: `quota-m-${i}` } })),
    );
    expect(statuses(answers)).toEqual([200, 200, 200, 429, 429, 429, 429, 429]);
    const refused = answers.find((a) => a.status === 429)!;
    expect(refused.body.error).toMatchObject({ code: 'QUOTA_EXCEEDED', details: { quota: 'machines', limit: 3, used: 3 } });
    expect(refused.body.error.message).toMatch(/at most 3 machines per identity.*CORE_QUOTAS/);
    const other = await mintKey(server);
    await createMachine(server, other.key, { slug: 'quota-m-other' });
  });

  it('refuses the machine past the quota over MCP as an isError result', async () => {
    const user = await mintKey(server);
    const client = await mcpClient(server, user.key);
    try {
      for (let i = 0; i < 3; i++) expect(errorOf(await client.callTool({ name: 'core_spin_up', arguments: { slug: `quota-mcp-${i}` } }))).toBeUndefined();
      const refused = await client.callTool({ name: 'core_spin_up', arguments: { slug: 'quota-mcp-3' } });
      expect(refused.isError).toBe(true);
      expect(errorOf(refused)).toMatchObject({ code: 'QUOTA_EXCEEDED', details: { quota: 'machines', limit: 3 } });
    } finally {
      await client.close();
    }
  });
});

describe('contracts, API keys and devices per machine', () => {
  it('keeps the live contracts of a machine at its quota under parallel creation, and a kill makes room', async () => {
    const owner = await spinUp(server, 'quota-c');
    const create = (i: number) => server.call('POST', '/api/chain/quota-c/contracts', { key: owner.key, body: { definition: definition(`c${i}`) } });
    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => create(i)));
    expect(statuses(answers)).toEqual([200, 200, 429, 429, 429, 429]);
    const refused = answers.find((a) => a.status === 429)!;
    expect(refused.body.error).toMatchObject({ code: 'QUOTA_EXCEEDED', details: { quota: 'contracts_per_machine', limit: 2 } });
    expect(refused.body.error.message).toMatch(/at most 2 live contracts on machine "quota-c"; kill a contract/);
    const id = answers.find((a) => a.status === 200)!.body.contract.id as string;
    expect((await server.call('POST', `/api/core/agent/kill/${id}`, { key: owner.key, body: { slug: 'quota-c', reason: 'make room' } })).status).toBe(200);
    expect((await create(9)).status).toBe(200);
    expect((await create(10)).status).toBe(429);
  });

  it('refuses the contract past the quota over MCP and core_http', async () => {
    const owner = await spinUp(server, 'quota-c-mcp');
    for (let i = 0; i < 2; i++)
      expect((await server.call('POST', '/api/chain/quota-c-mcp/contracts', { key: owner.key, body: { definition: definition(`c${i}`) } })).status).toBe(200);
    const client = await mcpClient(server, owner.key);
    try {
      const refused = await client.callTool({
        name: 'core_contract_deploy',
        arguments: { action: 'create', slug: 'quota-c-mcp', definition: definition('c3') },
      });
      expect(refused.isError).toBe(true);
      expect(errorOf(refused)).toMatchObject({ code: 'QUOTA_EXCEEDED', details: { quota: 'contracts_per_machine' } });
    } finally {
      await client.close();
    }
    const viaHttp = await server.call('POST', '/api/http', {
      key: owner.key,
      body: { method: 'POST', path: '/api/chain/quota-c-mcp/contracts', body: { definition: definition('c4') } },
    });
    expect(JSON.stringify(viaHttp.body)).toMatch(/QUOTA_EXCEEDED/);
    expect((await server.call('GET', '/api/chain/quota-c-mcp/contracts', { key: owner.key })).body.contracts).toHaveLength(2);
  });

  it('keeps the live API keys of a machine at its quota, and a revoke makes room', async () => {
    const owner = await spinUp(server, 'quota-k');
    const create = (i: number) => server.call('POST', '/api/chain/quota-k/api-keys', { key: owner.key, body: { name: `k${i}`, scope: 'read' } });
    const answers = await Promise.all(Array.from({ length: 5 }, (_, i) => create(i)));
    expect(statuses(answers)).toEqual([200, 200, 429, 429, 429]);
    expect(answers.find((a) => a.status === 429)!.body.error.details).toMatchObject({ quota: 'api_keys_per_machine', limit: 2 });
    const id = answers.find((a) => a.status === 200)!.body.key.id as string;
    expect((await server.call('DELETE', `/api/chain/quota-k/api-keys/${id}`, { key: owner.key })).status).toBe(200);
    expect((await create(9)).status).toBe(200);
  });

  it('keeps the devices of a machine at its quota under parallel registration', async () => {
    const owner = await spinUp(server, 'quota-d');
    const answers = await Promise.all(
      Array.from({ length: 5 }, (_, i) => server.call('POST', '/api/av/devices', { key: owner.key, body: { slug: 'quota-d', name: `d${i}`, os: 'linux' } })),
    );
    expect(statuses(answers)).toEqual([200, 200, 429, 429, 429]);
    expect(answers.find((a) => a.status === 429)!.body.error.details).toMatchObject({ quota: 'devices_per_machine', limit: 2 });
    expect((await server.call('GET', '/api/av/devices?slug=quota-d', { key: owner.key })).body.devices).toHaveLength(2);
  });
});

describe('demo keys per client address', () => {
  it('mints at most the quota from one address in a rolling hour, REST and MCP together, and says when the next one can be minted', async () => {
    const fake = createFakeClock();
    const node = await serverForTest({ CORE_QUOTAS: 'demo_keys_per_address=4' }, fake);
    const answers = await Promise.all(Array.from({ length: 10 }, () => node.call('POST', '/api/demo-key/mint', { body: {} })));
    expect(statuses(answers)).toEqual([200, 200, 200, 200, 429, 429, 429, 429, 429, 429]);
    const refused = answers.find((a) => a.status === 429)!;
    expect(refused.body.error).toMatchObject({ code: 'QUOTA_EXCEEDED', details: { quota: 'demo_keys_per_address', limit: 4, retry_after_s: 3600 } });
    expect(refused.body.error.message).toMatch(/at most 4 demo keys per client address per rolling hour; the next one can be minted at /);

    const client = await mcpClient(node);
    try {
      const viaMcp = await client.callTool({ name: 'core_account', arguments: { action: 'mint_demo_key' } });
      expect(errorOf(viaMcp)).toMatchObject({ code: 'QUOTA_EXCEEDED', details: { quota: 'demo_keys_per_address' } });
      fake.advance(3600 * 1000 + 1);
      expect(errorOf(await client.callTool({ name: 'core_account', arguments: { action: 'mint_demo_key' } }))).toBeUndefined();
    } finally {
      await client.close();
    }
    expect((await node.call('POST', '/api/demo-key/mint', { body: {} })).status).toBe(200);
  });
});

describe('CORE_QUOTAS=off', () => {
  it('turns every quota off for load tests', async () => {
    const node = await serverForTest({ CORE_QUOTAS: 'off' });
    const keys = await Promise.all(Array.from({ length: 25 }, () => node.call('POST', '/api/demo-key/mint', { body: {} })));
    expect(keys.every((k) => k.status === 200)).toBe(true);
    const owner = await spinUp(node, 'no-quota');
    for (let i = 0; i < 21; i++) {
      expect((await node.call('POST', '/api/chain/no-quota/contracts', { key: owner.key, body: { definition: definition(`c${i}`) } })).status).toBe(200);
    }
  });

  it('holds the default quotas without it', async () => {
    const node = await serverForTest({});
    const owner = await spinUp(node, 'default-quota');
    for (let i = 0; i < 20; i++) {
      expect((await node.call('POST', '/api/chain/default-quota/contracts', { key: owner.key, body: { definition: definition(`c${i}`) } })).status).toBe(200);
    }
    const refused = await node.call('POST', '/api/chain/default-quota/contracts', { key: owner.key, body: { definition: definition('c20') } });
    expect(refused.status).toBe(429);
    expect(refused.body.error.details).toMatchObject({ quota: 'contracts_per_machine', limit: 20 });
  });
});
