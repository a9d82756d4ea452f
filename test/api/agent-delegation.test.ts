import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, describe, expect, it } from 'vitest';
import { createMachine, mintKey } from '../helpers/server.js';
import { useServer } from '../helpers/use-server.js';

/**
 * Who may use an agent's store: the agent with its own user key or session, or the owner of a machine
 * the agent delegated (read, or read and write), until the agent revokes it. A role on a machine,
 * which anyone can grant anyone, is never such a grant. (The walk over every agent operation and
 * surface is test/reliability/auth-cross-agent.test.ts.)
 */
const clients: Client[] = [];

const server = useServer();
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
});

async function connect(key: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/api/mcp`), { requestInit: { headers: { Authorization: `Bearer ${key}` } } });
  const client = new Client({ name: 'agent-delegation', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return client;
}

/** A tool call's outcome: the error code when refused, the structured content otherwise. */
async function tool(client: Client, name: string, args: Record<string, unknown>): Promise<{ code?: string; message?: string; body?: any }> {
  const result = await client.callTool({ name, arguments: args });
  const content = result.structuredContent as any;
  return result.isError ? { code: content?.error?.code, message: content?.error?.message } : { body: content };
}

const plan = { title: 'Forged', goal: "Lock a plan in the victim's name", steps: [{ action: 'anything' }] };

/** A victim agent with some store, and an attacker who owns a machine and granted the victim a role on it. */
async function attackScene(slug: string) {
  const victim = await mintKey(server);
  const attacker = await mintKey(server);
  await createMachine(server, attacker.key, { slug });
  // No consent is asked for a role: that is why a role cannot be a grant to act for the member.
  expect((await server.call('POST', `/api/chain/${slug}/admins`, { key: attacker.key, body: { uid: victim.uid, role: 'operator' } })).status).toBe(200);
  await server.call('POST', '/api/agent/files/write', { key: victim.key, body: { path: 'secret.txt', content: 'mine' } });
  await server.call('PATCH', `/api/agent/${victim.uid}/state`, { key: victim.key, body: { patch: { note: 'private' } } });
  return { victim, attacker };
}

describe('acting for another agent', () => {
  it('refuses the role-granting attack on files, state, plans, skills and sandbox over REST, MCP and core_http, and leaves the store untouched', async () => {
    const slug = 'lure-1';
    const { victim, attacker } = await attackScene(slug);
    const v = victim.uid;
    const rest: Array<[string, string, unknown?]> = [
      ['GET', `/api/agent/files/read?uid=${v}&slug=${slug}&path=secret.txt`],
      ['POST', '/api/agent/files/write', { uid: v, slug, path: 'secret.txt', content: 'forged' }],
      ['GET', `/api/agent/${v}/state?slug=${slug}`],
      ['PATCH', `/api/agent/${v}/state?slug=${slug}`, { patch: { note: 'forged' } }],
      ['POST', `/api/agent/${v}/plans/draft`, { slug, plan }],
      ['POST', `/api/agent/${v}/plans/lock`, { slug, plan }],
      ['GET', `/api/agent/${v}/plans/current?slug=${slug}`],
      ['POST', `/api/agent/${v}/skills/attach`, { slug, name: 'getting-started' }],
      ['POST', `/api/agent/${v}/sandbox/run`, { slug, code: 'print(1)' }],
      ['GET', `/api/agent/${v}/sandbox/quota?slug=${slug}`],
      ['GET', `/api/agent/${v}/sandbox/runs?slug=${slug}`],
    ];
    for (const [method, path, body] of rest) {
      const res = await server.call(method, path, { key: attacker.key, ...(body ? { body } : {}) });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body.error.message, `${method} ${path}`).toContain(`Agent ${v} has not delegated its store to you for "${slug}"`);
    }

    const client = await connect(attacker.key);
    const mcp: Array<[string, Record<string, unknown>]> = [
      ['core_agent_files', { action: 'read', uid: v, slug, path: 'secret.txt' }],
      ['core_agent_files', { action: 'write', uid: v, slug, path: 'secret.txt', content: 'forged' }],
      ['core_agent_state', { action: 'get', uid: v, slug }],
      ['core_agent_state', { action: 'patch', uid: v, slug, patch: { note: 'forged' } }],
      ['core_agent_plan_write', { action: 'save_draft', uid: v, slug, plan }],
      ['core_agent_plan_write', { action: 'lock', uid: v, slug, plan }],
      ['core_agent_plan_read', { action: 'draft', uid: v, slug }],
      ['core_agent_skills', { action: 'attach', uid: v, slug, name: 'getting-started' }],
      ['core_sandbox_run', { uid: v, slug, code: 'print(1)' }],
      ['core_sandbox_history', { action: 'quota', uid: v, slug }],
      ['core_sandbox_history', { action: 'runs', uid: v, slug }],
    ];
    for (const [name, args] of mcp) {
      const res = await tool(client, name, args);
      expect(res.code, `${name} ${args.action ?? ''}`).toBe('FORBIDDEN');
    }
    for (const [method, path, body] of rest) {
      const [p, q] = path.split('?');
      const args: Record<string, unknown> = { method, path: p, ...(q ? { query: Object.fromEntries(new URLSearchParams(q)) } : {}), ...(body ? { body } : {}) };
      const res = await tool(client, 'core_http', args);
      expect(res.code, `core_http ${method} ${path}`).toBe('FORBIDDEN');
    }

    // The victim's store is as the victim left it.
    const own = { key: victim.key };
    expect((await server.call('GET', '/api/agent/files/history?path=secret.txt', own)).body.versions).toHaveLength(1);
    const state = await server.call('GET', `/api/agent/${v}/state`, own);
    expect(state.body).toMatchObject({ revision: 1, state: { note: 'private' } });
    expect((await server.call('GET', `/api/agent/${v}/skills`, own)).body.skills).toEqual([]);
    expect((await server.call('GET', `/api/agent/${v}/sandbox/quota`, own)).body.runs_used).toBe(0);
    expect((await server.call('GET', `/api/agent/${v}/plans/draft?slug=${slug}`, own)).body.plan).toBeNull();
    expect((await server.call('GET', `/api/agent/${v}/plans/current?slug=${slug}`, own)).body.plan).toBeNull();
  });

  it('still serves the agent itself on every surface', async () => {
    const { victim } = await attackScene('lure-2');
    const rest = await server.call('GET', `/api/agent/${victim.uid}/state?slug=lure-2`, { key: victim.key });
    expect(rest.status).toBe(200);
    const client = await connect(victim.key);
    const mcp = await tool(client, 'core_agent_state', { action: 'patch', uid: victim.uid, patch: { via: 'mcp' } });
    expect(mcp.body).toMatchObject({ state: { via: 'mcp' } });
    const http = await tool(client, 'core_http', { method: 'POST', path: `/api/agent/${victim.uid}/plans/draft`, body: { slug: 'lure-2', plan } });
    expect(http.body).toMatchObject({ ok: true, plan: { uid: victim.uid, status: 'draft' } });
  });

  it("does not take a machine key of the agent's own machine for the agent", async () => {
    const agent = await mintKey(server);
    const made = await server.call('POST', '/api/chain/state-machines', { key: agent.key, body: { slug: 'own-mk' } });
    const machineKey = made.body.api_key as string;
    const res = await server.call('GET', `/api/agent/${agent.uid}/state`, { key: machineKey });
    expect(res.status).toBe(403);
    expect(res.body.error.message).toContain('a machine key speaks for its machine');
    const files = await server.call('GET', '/api/agent/files/list', { key: machineKey });
    expect(files.status).toBe(403);
  });
});

describe('delegations', () => {
  it('lets a delegated owner read, then write, and refuses the very next call once revoked, on an open MCP session', async () => {
    const owner = await mintKey(server);
    const agent = await mintKey(server);
    const slug = 'deleg-1';
    await createMachine(server, owner.key, { slug });
    await server.call('POST', `/api/chain/${slug}/admins`, { key: owner.key, body: { uid: agent.uid, role: 'operator' } });
    const delegate = (access: string) => server.call('POST', `/api/agent/${agent.uid}/delegations`, { key: agent.key, body: { slug, access } });

    const granted = await delegate('read');
    expect(granted.status).toBe(200);
    expect(granted.body).toMatchObject({ changed: true, delegation: { slug, grantee_uid: owner.uid, access: 'read' } });
    expect((await delegate('read')).body.changed).toBe(false);

    const client = await connect(owner.key);
    expect((await tool(client, 'core_agent_state', { action: 'get', uid: agent.uid, slug })).body).toMatchObject({ uid: agent.uid });
    const readOnly = await tool(client, 'core_agent_state', { action: 'patch', uid: agent.uid, slug, patch: { by: 'owner' } });
    expect(readOnly).toMatchObject({ code: 'FORBIDDEN', message: expect.stringContaining('only read access') });
    // Without naming the machine there is no delegation to use.
    expect((await tool(client, 'core_agent_state', { action: 'get', uid: agent.uid })).code).toBe('FORBIDDEN');

    await delegate('write');
    expect((await tool(client, 'core_agent_state', { action: 'patch', uid: agent.uid, slug, patch: { by: 'owner' } })).body).toMatchObject({
      state: { by: 'owner' },
    });
    const locked = await tool(client, 'core_http', { method: 'POST', path: `/api/agent/${agent.uid}/plans/lock`, body: { slug, plan } });
    expect(locked.body).toMatchObject({ ok: true, plan: { uid: agent.uid, version: 1 } });
    const rows = await server.call('GET', `/api/chain/${slug}/activity?type=plan_locked`, { key: owner.key });
    expect(rows.body.rows[0]).toMatchObject({ actor_uid: owner.uid });

    // A write delegation includes sandbox runs on the agent's quota, recorded for the machine and the caller.
    const run = await server.call('POST', `/api/agent/${agent.uid}/sandbox/run`, { key: owner.key, body: { slug, code: 'print(7)' } });
    expect(run.body).toMatchObject({ ok: true, stdout: '7\n', slug, quota: { runs_used: 1 } });
    expect((await server.call('GET', `/api/agent/${agent.uid}/sandbox/quota`, { key: agent.key })).body.runs_used).toBe(1);

    const revoked = await server.call('DELETE', `/api/agent/${agent.uid}/delegations/${slug}`, { key: agent.key });
    expect(revoked.body).toMatchObject({ ok: true, slug, changed: true });
    const after = await tool(client, 'core_agent_state', { action: 'get', uid: agent.uid, slug });
    expect(after).toMatchObject({ code: 'FORBIDDEN', message: expect.stringContaining('has not delegated') });
    expect((await server.call('DELETE', `/api/agent/${agent.uid}/delegations/${slug}`, { key: agent.key })).body.changed).toBe(false);

    const list = await server.call('GET', `/api/agent/${agent.uid}/delegations`, { key: agent.key });
    expect(list.body.delegations).toEqual([]);
    expect(list.body.history.map((h: { type: string; access: string }) => `${h.type} ${h.access}`)).toEqual([
      'delegation.revoked write',
      'delegation.granted write',
      'delegation.granted read',
    ]);
  });

  it('answers only the agent itself on delegate, delegations and revoke', async () => {
    const owner = await mintKey(server);
    const agent = await mintKey(server);
    const slug = 'deleg-2';
    await createMachine(server, owner.key, { slug, isPublic: true });
    await server.call('POST', `/api/agent/${agent.uid}/delegations`, { key: agent.key, body: { slug, access: 'read' } });
    // The delegate cannot widen its own grant, list the agent's grants or revoke them.
    const widen = await server.call('POST', `/api/agent/${agent.uid}/delegations`, { key: owner.key, body: { slug, access: 'write' } });
    expect(widen.status).toBe(403);
    expect(widen.body.error.message).toContain('may manage its delegations');
    expect((await server.call('GET', `/api/agent/${agent.uid}/delegations`, { key: owner.key })).status).toBe(403);
    expect((await server.call('DELETE', `/api/agent/${agent.uid}/delegations/${slug}`, { key: owner.key })).status).toBe(403);
    expect((await server.call('GET', `/api/agent/${agent.uid}/delegations`)).status).toBe(401);
    expect((await server.call('GET', `/api/agent/${agent.uid}/delegations`, { key: agent.key })).body.delegations).toEqual([
      { slug, grantee_uid: owner.uid, access: 'read', created_at: expect.any(String) },
    ]);
  });

  it('refuses to delegate a private machine the agent cannot read, and one the agent owns', async () => {
    const owner = await mintKey(server);
    const agent = await mintKey(server);
    await createMachine(server, owner.key, { slug: 'deleg-3' });
    const hidden = await server.call('POST', `/api/agent/${agent.uid}/delegations`, { key: agent.key, body: { slug: 'deleg-3', access: 'read' } });
    expect(hidden.status).toBe(404);
    expect(hidden.body.error.message).toBe('No machine "deleg-3"');
    await createMachine(server, agent.key, { slug: 'deleg-3-own' });
    const own = await server.call('POST', `/api/agent/${agent.uid}/delegations`, { key: agent.key, body: { slug: 'deleg-3-own', access: 'read' } });
    expect(own.status).toBe(400);
  });
});
