import { randomBytes } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { createFakeClock, tickStartMs } from '../../src/lib/clock.js';
import { createMachine, mintKey } from '../helpers/server.js';
import { useServer } from '../helpers/use-server.js';

/**
 * A contract's `definition.secrets` is write-only. No read answers it (the
 * public directory to anonymous callers, contract, list, version and export reads to members, the
 * answers of writes), over REST, MCP and core_http; the contract's conditions still use it.
 */
const clock = createFakeClock(tickStartMs(2_287_000_000));
let n = 0;

const server = useServer({}, clock);

/** A public machine with a viewer, and a contract whose condition compares a caller's token with a secret. */
async function setup() {
  const slug = `sec-${++n}`;
  const owner = await mintKey(server);
  const viewer = await mintKey(server);
  await createMachine(server, owner.key, { slug, isPublic: true });
  expect((await server.call('POST', `/api/chain/${slug}/admins`, { key: owner.key, body: { uid: viewer.uid, role: 'viewer' } })).status).toBe(200);
  const token = `tok-${randomBytes(12).toString('hex')}`;
  const definition = {
    name: 'gate',
    states: { closed: { initial: true }, open: {} },
    transitions: [
      { from: 'closed', to: 'open', operator: 'KO42', condition: 'input.token == secrets.expected' },
      { from: 'open', to: 'closed', operator: 'KO42' },
    ],
    secrets: { expected: token },
  };
  const created = await server.call('POST', `/api/chain/${slug}/contracts`, { key: owner.key, body: { definition } });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const id = created.body.contract.id as string;
  return { slug, owner, viewer, token, id, definition, created };
}

async function mcpClient(key?: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/api/mcp`), {
    requestInit: { headers: key ? { authorization: `Bearer ${key}` } : {} },
  });
  const client = new Client({ name: 'contract-secrets-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

describe('contract secrets are write-only', () => {
  it('answers no read with the secrets: anonymous directory, viewer, versions, list, export and write answers over REST', async () => {
    const t = await setup();
    const reads: Array<[string, { status: number; body: unknown }]> = [
      ['create answer', t.created],
      ['anonymous public get', await server.call('GET', `/api/contracts/public/${t.id}`)],
      ['anonymous public list', await server.call('GET', `/api/contracts/public?slug=${t.slug}`)],
      ['viewer get', await server.call('GET', `/api/chain/${t.slug}/contracts/${t.id}`, { key: t.viewer.key })],
      ['viewer list', await server.call('GET', `/api/chain/${t.slug}/contracts`, { key: t.viewer.key })],
      ['viewer version', await server.call('GET', `/api/chain/${t.slug}/contracts/${t.id}/versions/1`, { key: t.viewer.key })],
      ['owner version', await server.call('GET', `/api/chain/${t.slug}/contracts/${t.id}/versions/1`, { key: t.owner.key })],
      ['owner export', await server.call('GET', `/api/chain/${t.slug}/contracts/${t.id}/export`, { key: t.owner.key })],
    ];
    for (const [what, res] of reads) {
      expect(res.status, what).toBe(200);
      expect(JSON.stringify(res.body), what).not.toContain(t.token);
      expect(JSON.stringify(res.body), what).not.toContain('"secrets"');
    }
    // The rest of the definition is still there.
    const pub = reads[1]![1].body as { contract: { definition: { transitions: Array<{ condition?: string }> } } };
    expect(pub.contract.definition.transitions[0]!.condition).toBe('input.token == secrets.expected');
  });

  it('answers no read with the secrets over MCP (anonymous and viewer) and core_http', async () => {
    const t = await setup();
    const anonymous = await mcpClient();
    const viewer = await mcpClient(t.viewer.key);
    try {
      const results = [
        await anonymous.callTool({ name: 'core_contracts_public', arguments: { action: 'get', id: t.id } }),
        await viewer.callTool({ name: 'core_contracts', arguments: { action: 'get', slug: t.slug, id: t.id } }),
        await viewer.callTool({ name: 'core_contract_update', arguments: { action: 'version', slug: t.slug, id: t.id, n: '1' } }),
        await viewer.callTool({ name: 'core_http', arguments: { method: 'GET', path: `/api/chain/${t.slug}/contracts/${t.id}` } }),
        await anonymous.callTool({ name: 'core_http', arguments: { method: 'GET', path: `/api/contracts/public/${t.id}` } }),
      ];
      for (const [i, result] of results.entries()) {
        expect(result.isError, `call ${i}: ${JSON.stringify(result).slice(0, 300)}`).toBeFalsy();
        expect(JSON.stringify(result), `call ${i}`).not.toContain(t.token);
      }
      expect(JSON.stringify(results[0])).toContain('secrets.expected');
    } finally {
      await anonymous.close();
      await viewer.close();
    }
  });

  it('strips secrets stored in any shape before the output check: an older non-object value reads fine', async () => {
    const t = await setup();
    await server.core.services.contracts.core.contracts.update(t.id, (r) => ({
      ...r,
      definition: { ...r.definition, secrets: 'legacy-plain-string' as unknown as Record<string, unknown> },
    }));
    const res = await server.call('GET', `/api/chain/${t.slug}/contracts/${t.id}`, { key: t.viewer.key });
    expect(res.status).toBe(200);
    expect(JSON.stringify(res.body)).not.toContain('legacy-plain-string');
  });

  it('still fires on the secrets, and an edit that omits them keeps them', async () => {
    const t = await setup();
    const base = `/api/chain/${t.slug}/contracts/${t.id}`;
    const wrong = await server.call('POST', `${base}/transition`, { key: t.owner.key, body: { to: 'open', input: { token: 'guess' } } });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.details.code).toBe('condition_failed');
    const right = await server.call('POST', `${base}/transition`, { key: t.owner.key, body: { to: 'open', input: { token: t.token } } });
    expect(right.status, JSON.stringify(right.body)).toBe(200);
    expect(JSON.stringify(right.body)).not.toContain(t.token.slice(4));
    // The definition as read back (without secrets) is sent back edited: the secrets stay.
    const read = await server.call('GET', base, { key: t.owner.key });
    const edited = { ...read.body.contract.definition, version: '2' };
    const patched = await server.call('PATCH', base, { key: t.owner.key, body: { definition: edited } });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(JSON.stringify(patched.body)).not.toContain(t.token);
    expect((await server.call('POST', `${base}/transition`, { key: t.owner.key, body: { to: 'closed' } })).status).toBe(200);
    expect((await server.call('POST', `${base}/transition`, { key: t.owner.key, body: { to: 'open', input: { token: t.token } } })).status).toBe(200);
    // A dry run uses them too, and says nothing of their value.
    const dry = await server.call('POST', `${base}/dry-run`, { key: t.owner.key, body: { input: { token: 'guess' } } });
    expect(dry.status).toBe(200);
    expect(JSON.stringify(dry.body)).not.toContain(t.token);
  });
});
