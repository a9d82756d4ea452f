import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { createMachine, mintKey, spinUp } from '../helpers/server.js';
import { useServer } from '../helpers/use-server.js';
import { MALFORMED_KEY_MESSAGE, NO_KEY_MESSAGE } from '../../src/errors.js';
import { MALFORMED_KEY_WARNING } from '../../src/pipeline/invoke.js';

const server = useServer({ CORE_RATE_LIMIT: 'off' });

/** A key that looks right but was never minted here (an old key, or one from another server). */
const STALE_KEY = `core_${'x'.repeat(43)}`;
const NOT_KNOWN = /not known to this server's store/;

async function mcp(bearer?: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/api/mcp`), {
    requestInit: bearer ? { headers: { Authorization: `Bearer ${bearer}` } } : {},
  });
  const client = new Client({ name: 'identity-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

describe('who am I (identity.describeCaller)', () => {
  it('tells a user key its uid, key id and the machines it owns, over REST', async () => {
    const owner = await spinUp(server, 'whoami-one');
    await createMachine(server, owner.key, { slug: 'whoami-two' });
    const res = await server.call('GET', '/api/whoami', { key: owner.key });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-core-key-warning')).toBeNull();
    expect(res.body).toMatchObject({
      ok: true,
      authenticated: true,
      uid: owner.uid,
      credential: 'user-key',
      scope: null,
      machine: null,
      machines_owned: ['whoami-one', 'whoami-two'],
      machines_owned_total: 2,
    });
    expect(res.body.key_id).toEqual(expect.any(String));
    expect(res.body.note).toBeUndefined();
  });

  it('tells a machine key which machine it belongs to, and a developer key its scope', async () => {
    const owner = await spinUp(server, 'whoami-keys');
    const asMachine = await server.call('GET', '/api/whoami', { key: owner.machineKey });
    expect(asMachine.body).toMatchObject({ authenticated: true, uid: owner.uid, credential: 'machine-key', machine: 'whoami-keys' });
    const dev = await server.call('POST', '/api/chain/whoami-keys/api-keys', { key: owner.key, body: { name: 'reader', scope: 'read' } });
    expect(dev.status).toBe(200);
    const asDev = await server.call('GET', '/api/whoami', { key: dev.body.api_key });
    expect(asDev.body).toMatchObject({ authenticated: true, credential: 'machine-key', scope: 'read', machine: 'whoami-keys', key_id: dev.body.key.id });
  });

  it('answers an anonymous caller with how to get a key', async () => {
    const res = await server.call('GET', '/api/whoami');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ authenticated: false, uid: null, credential: 'none', key_id: null, machines_owned: [], machines_owned_total: 0 });
    expect(res.body.note).toMatch(/demo-key\/mint/);
  });

  it('answers over MCP (core_account whoami) and core_http with the same identity', async () => {
    const owner = await spinUp(server, 'whoami-mcp');
    const client = await mcp(owner.key);
    try {
      const direct = await client.callTool({ name: 'core_account', arguments: { action: 'whoami' } });
      expect(direct.isError).toBeFalsy();
      expect(direct.structuredContent).toMatchObject({ uid: owner.uid, credential: 'user-key', machines_owned: ['whoami-mcp'] });
      const viaHttp = await client.callTool({ name: 'core_http', arguments: { method: 'GET', path: '/api/whoami' } });
      expect(viaHttp.structuredContent).toEqual(direct.structuredContent);
    } finally {
      await client.close();
    }
  });
});

describe('a bearer key this server does not know', () => {
  it('is answered as anonymous with a warning header on a public operation, so a new key can be minted', async () => {
    const minted = await server.call('POST', '/api/demo-key/mint', { key: STALE_KEY, body: {} });
    expect(minted.status).toBe(200);
    expect(minted.body.key).toMatch(/^core_/);
    expect(minted.headers.get('x-core-key-warning')).toMatch(NOT_KNOWN);
    const who = await server.call('GET', '/api/whoami', { key: STALE_KEY });
    expect(who.status).toBe(200);
    expect(who.body).toMatchObject({ authenticated: false, uid: null, credential: 'none' });
    expect(who.body.note).toMatch(NOT_KNOWN);
    const pulse = await server.call('GET', '/api/pulse', { key: STALE_KEY });
    expect(pulse.status).toBe(200);
    expect(pulse.headers.get('x-core-key-warning')).toMatch(NOT_KNOWN);
  });

  it('gets 401 on a bearer operation, with a message saying the key is not known to this store', async () => {
    const res = await server.call('POST', '/api/chain/state-machines', { key: STALE_KEY, body: { slug: 'stale-lab' } });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('UNAUTHENTICATED');
    expect(res.body.error.message).toMatch(NOT_KNOWN);
    expect(res.body.error.message).toMatch(/POST \/api\/demo-key\/mint/);
    // No key at all: the spec's words, then how to get a key.
    const none = await server.call('POST', '/api/chain/state-machines', { body: { slug: 'stale-lab' } });
    expect(none.body.error.message).toBe(NO_KEY_MESSAGE);
  });

  it('treats a revoked developer key the same way: anonymous on public reads, 401 where a key is needed', async () => {
    const owner = await spinUp(server, 'revoked-lab', true);
    const dev = await server.call('POST', '/api/chain/revoked-lab/api-keys', { key: owner.key, body: { name: 'old', scope: 'write' } });
    const revoked = await server.call('DELETE', `/api/chain/revoked-lab/api-keys/${dev.body.key.id}`, { key: owner.key });
    expect(revoked.status).toBe(200);
    const who = await server.call('GET', '/api/whoami', { key: dev.body.api_key });
    expect(who.body).toMatchObject({ authenticated: false, uid: null });
    expect(who.headers.get('x-core-key-warning')).toMatch(NOT_KNOWN);
    const write = await server.call('POST', '/api/chain/revoked-lab/event', { key: dev.body.api_key, body: { type: 'x', payload: {} } });
    expect(write.status).toBe(401);
    expect(write.body.error.message).toMatch(NOT_KNOWN);
  });

  it('over MCP: a public tool answers with a warning note, a bearer tool with an isError naming the stale key', async () => {
    const client = await mcp(STALE_KEY);
    try {
      const minted = await client.callTool({ name: 'core_account', arguments: { action: 'mint_demo_key' } });
      expect(minted.isError).toBeFalsy();
      expect((minted.structuredContent as { key: string }).key).toMatch(/^core_/);
      const texts = (minted.content as { type: string; text: string }[]).map((c) => c.text);
      expect(texts.at(-1)).toMatch(/^Warning: .*not known to this server's store/);
      expect(minted._meta?.['core/warning']).toMatch(NOT_KNOWN);
      const spun = await client.callTool({ name: 'core_spin_up', arguments: { slug: 'stale-mcp' } });
      expect(spun.isError).toBe(true);
      expect(spun.structuredContent).toMatchObject({ error: { code: 'UNAUTHENTICATED', message: expect.stringMatching(NOT_KNOWN) } });
    } finally {
      await client.close();
    }
  });

  it('through core_http: the target answers as for an anonymous caller, or 401 saying the key is not known', async () => {
    const who = await server.call('POST', '/api/http', { key: STALE_KEY, body: { method: 'GET', path: '/api/whoami' } });
    expect(who.status).toBe(200);
    expect(who.body).toMatchObject({ authenticated: false, uid: null });
    expect(who.headers.get('x-core-key-warning')).toMatch(NOT_KNOWN);
    const spin = await server.call('POST', '/api/http', {
      key: STALE_KEY,
      body: { method: 'POST', path: '/api/chain/state-machines', body: { slug: 'stale-http' } },
    });
    expect(spin.status).toBe(401);
    expect(spin.body.error.message).toMatch(NOT_KNOWN);
  });

  it('is told the key is the problem, not that a private machine it could read does not exist', async () => {
    const owner = await spinUp(server, 'stale-private');
    const dev = await server.call('POST', '/api/chain/stale-private/api-keys', { key: owner.key, body: { name: 'old', scope: 'read' } });
    expect((await server.call('GET', '/api/chain/stale-private/activity', { key: dev.body.api_key })).status).toBe(200);
    await server.call('DELETE', `/api/chain/stale-private/api-keys/${dev.body.key.id}`, { key: owner.key });
    const read = await server.call('GET', '/api/chain/stale-private/activity', { key: dev.body.api_key });
    expect(read.status).toBe(401);
    expect(read.body.error.message).toMatch(NOT_KNOWN);
    // The same answer for a machine that does not exist: nothing about the private one leaks.
    const ghost = await server.call('GET', '/api/chain/no-such-machine-here/activity', { key: dev.body.api_key });
    expect({ status: ghost.status, message: ghost.body.error.message }).toEqual({ status: read.status, message: read.body.error.message });
  });

  it('counts "Bearer" with no token (an unset ${CORE_API_KEY} in a client config) as no key, and a malformed header as an unknown key', async () => {
    const empty = await server.call('POST', '/api/demo-key/mint', { headers: { authorization: 'Bearer ' }, body: {} });
    expect(empty.status).toBe(200);
    expect(empty.headers.get('x-core-key-warning')).toBeNull();
    // Public operations answer, with a warning saying what is wrong, as for a key this server does not know.
    for (const authorization of ['Basic abc', 'hello world']) {
      const read = await server.call('GET', '/api/pulse', { headers: { authorization } });
      expect(read.status, authorization).toBe(200);
      expect(read.headers.get('x-core-key-warning'), authorization).toBe(MALFORMED_KEY_WARNING);
      const write = await server.call('POST', '/api/chain/state-machines', { headers: { authorization }, body: { slug: 'malformed-lab' } });
      expect(write.status, authorization).toBe(401);
      expect(write.body.error.message, authorization).toBe(MALFORMED_KEY_MESSAGE);
    }
  });

  it('leaves a valid key untouched: no warning', async () => {
    const { key } = await mintKey(server);
    const res = await server.call('GET', '/api/pulse', { key });
    expect(res.headers.get('x-core-key-warning')).toBeNull();
  });
});
