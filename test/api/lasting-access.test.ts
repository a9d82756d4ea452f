import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { createMachine, mintKey, signIn, type TestServer } from '../helpers/server.js';
import { serverForTest } from '../helpers/use-server.js';

/**
 * One rule for durable credentials: an operation declared `lastingAccess`
 * is refused to an unproven session (an e-mail address alone) on every surface, and still runs for a
 * proven session and for a key holder.
 */
interface Call {
  name: string;
  tool: string;
  action: string;
  method: string;
  path: string;
  /** A fresh body per call: each grant names a new grantee, so a second one is not a conflict. */
  body: () => Promise<Record<string, unknown>>;
}

/** The five kinds of lasting access, on machine `lab`, for the agent `uid`; grants go to new demo identities. */
function lastingCalls(server: TestServer, uid: string): Call[] {
  const none = async () => ({});
  return [
    { name: 'publish key', tool: 'core_site', action: 'issue_publish_key', method: 'POST', path: '/api/chain/lab/site/publish-key', body: none },
    {
      name: 'admin grant',
      tool: 'core_admins',
      action: 'add',
      method: 'POST',
      path: '/api/chain/lab/admins',
      body: async () => ({ uid: (await mintKey(server)).uid, role: 'admin' }),
    },
    { name: 'share token', tool: 'core_machine_settings', action: 'share_set', method: 'POST', path: '/api/chain/state-machines/lab/share/set', body: none },
    {
      name: 'delegation',
      tool: 'core_agent_state',
      action: 'delegate',
      method: 'POST',
      path: `/api/agent/${uid}/delegations`,
      body: async () => ({ slug: 'lab', access: 'write' }),
    },
    {
      name: 'API key',
      tool: 'core_api_keys',
      action: 'create',
      method: 'POST',
      path: '/api/chain/lab/api-keys',
      body: async () => ({ name: 'ci', scope: 'admin' }),
    },
  ];
}

/** Runs `call` through REST, MCP over HTTP and `core_http`: the status or error code each answered. */
async function everySurface(server: TestServer, call: Call, headers: Record<string, string>) {
  const rest = await server.call(call.method, call.path, { headers, body: await call.body() });
  const pathParams = call.path.includes('/api/agent/') ? { uid: call.path.split('/')[3] } : { slug: 'lab' };
  const mcp = await server.call('POST', '/api/mcp', {
    headers: { ...headers, accept: 'application/json' },
    body: {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: call.tool, arguments: { action: call.action, ...pathParams, ...(await call.body()) } },
    },
  });
  const relay = await server.call('POST', '/api/http', { headers, body: { method: call.method, path: call.path, body: await call.body() } });
  return {
    rest: { status: rest.status, message: rest.body?.error?.message as string | undefined },
    mcp: mcp.body.result?.isError
      ? { code: mcp.body.result.structuredContent?.error?.code as string, message: mcp.body.result.structuredContent?.error?.message as string }
      : { code: mcp.body.result?.structuredContent?.ok === true ? 'ok' : JSON.stringify(mcp.body), message: undefined },
    relay: { status: relay.body?.status ?? relay.status, message: relay.body?.body?.error?.message ?? relay.body?.error?.message },
  };
}

/** A machine `lab` owned by a demo key, with `uid` holding the admin role on it. */
async function labWithAdmin(server: TestServer, uid: string) {
  const owner = await mintKey(server);
  await createMachine(server, owner.key, { slug: 'lab' });
  expect((await server.call('POST', '/api/chain/lab/admins', { key: owner.key, body: { uid, role: 'admin' } })).status).toBe(200);
  return owner;
}

describe('lasting access needs a proven identity', () => {
  it('refuses an unproven admin session every kind of lasting access, through REST, MCP and core_http', async () => {
    const server = await serverForTest({ CORE_LOGIN_MODE: 'email' });
    const login = await server.call('POST', '/api/auth/login', { body: { email: 'ada@example.org' } });
    const set = login.headers.getSetCookie().find((c) => c.startsWith('core_session='))!;
    const token = set.slice('core_session='.length, set.indexOf(';'));
    const uid = decodeJwt(token).sub!;
    await labWithAdmin(server, uid);
    const demo = await mintKey(server);
    const cookie = { cookie: `core_session=${token}` };
    expect((await server.call('GET', '/api/chain/state-machines/lab', { headers: cookie })).body.role).toBe('admin');

    for (const call of lastingCalls(server, uid)) {
      const got = await everySurface(server, call, cookie);
      expect(got.rest.status, `${call.name} over REST`).toBe(403);
      expect(got.rest.message, call.name).toMatch(/needs a proven identity.*one-time code.*user key/);
      expect(got.mcp.code, `${call.name} over MCP`).toBe('FORBIDDEN');
      expect(got.mcp.message, call.name).toMatch(/needs a proven identity/);
      expect(got.relay.status, `${call.name} over core_http`).toBe(403);
      expect(got.relay.message, call.name).toMatch(/needs a proven identity/);
    }
    // Finding 6: a demo key its holder controls is not made an admin, so it reads nothing of the machine afterwards.
    const grant = await server.call('POST', '/api/chain/lab/admins', { headers: cookie, body: { uid: demo.uid, role: 'admin' } });
    expect(grant.status).toBe(403);
    expect((await server.call('GET', '/api/chain/lab/api-keys', { key: demo.key })).status).toBe(404);
    // Reading within the session's role still works.
    expect((await server.call('GET', '/api/chain/lab/admins', { headers: cookie })).status).toBe(200);
  });

  it('lets a proven session and a key holder create each kind of lasting access', async () => {
    const server = await serverForTest();
    const session = await signIn(server, 'ada@example.org');
    const owner = await labWithAdmin(server, session.uid);
    const proven = { cookie: session.cookie };
    for (const call of lastingCalls(server, session.uid)) {
      const res = await server.call(call.method, call.path, { headers: proven, body: await call.body() });
      expect(res.status, `${call.name} by a proven session: ${JSON.stringify(res.body)}`).toBe(200);
    }
    // A key holder with the admin role (not the owner: nobody delegates to a machine of their own).
    const holder = await mintKey(server);
    expect((await server.call('POST', '/api/chain/lab/admins', { key: owner.key, body: { uid: holder.uid, role: 'admin' } })).status).toBe(200);
    for (const call of lastingCalls(server, holder.uid)) {
      const got = await everySurface(server, call, { authorization: `Bearer ${holder.key}` });
      expect(got.rest.status, `${call.name} by a key over REST`).toBe(200);
      expect(got.mcp.code, `${call.name} by a key over MCP`).toBe('ok');
      expect(got.relay.status, `${call.name} by a key over core_http`).toBe(200);
    }
  });
});
