import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createMachine, mintKey } from '../helpers/server.js';
import { useServer } from '../helpers/use-server.js';

const server = useServer();

const plan = (title: string) => ({ title, goal: `Goal of ${title}`, steps: [{ action: 'first' }, { action: 'second', tool: 'core_compute' }] });

/** An agent that works on a machine owned by someone else (operator role), plus a stranger. */
async function team(slug: string, isPublic = false) {
  const owner = await mintKey(server);
  const agent = await mintKey(server);
  const stranger = await mintKey(server);
  const created = await createMachine(server, owner.key, { slug, isPublic });
  const grant = await server.call('POST', `/api/chain/${slug}/admins`, { key: owner.key, body: { uid: agent.uid, role: 'operator' } });
  expect(grant.status).toBe(200);
  return { owner, agent, stranger, machineKey: created.machineKey };
}

/** The agent lets the owner of `slug` use its store (its own key is the only way to do so). */
async function delegate(agent: { key: string; uid: string }, slug: string, access: 'read' | 'write') {
  const res = await server.call('POST', `/api/agent/${agent.uid}/delegations`, { key: agent.key, body: { slug, access } });
  expect(res.status).toBe(200);
}

describe('who may act for an agent', () => {
  it('answers 401 without a key and 403 to another agent, on every kind of agent operation', async () => {
    const { agent, stranger } = await team('who-1');
    const calls: Array<[string, string, unknown?]> = [
      ['GET', `/api/agent/${agent.uid}/state`],
      ['PATCH', `/api/agent/${agent.uid}/state`, { patch: { a: 1 } }],
      ['GET', `/api/agent/${agent.uid}/skills`],
      ['GET', `/api/agent/${agent.uid}/sandbox/quota`],
      ['GET', `/api/agent/files/list?uid=${agent.uid}`],
    ];
    for (const [method, p, body] of calls) {
      expect((await server.call(method, p, body ? { body } : {})).status, `${method} ${p}`).toBe(401);
      const denied = await server.call(method, p, { key: stranger.key, ...(body ? { body } : {}) });
      expect(denied.status, `${method} ${p}`).toBe(403);
      expect(denied.body.error.code).toBe('FORBIDDEN');
    }
  });

  it("lets the owner of a machine act for the agent only under the agent's delegation, and nobody else", async () => {
    const { owner, agent, stranger } = await team('who-2');
    await createMachine(server, stranger.key, { slug: 'who-2-other' });
    // The agent holds a role on who-2, but that is no grant to its owner.
    const undelegated = await server.call('PATCH', `/api/agent/${agent.uid}/state?slug=who-2`, { key: owner.key, body: { patch: { note: 'from owner' } } });
    expect(undelegated.status).toBe(403);
    expect(undelegated.body.error.message).toContain('has not delegated');
    await delegate(agent, 'who-2', 'write');
    const byOwner = await server.call('PATCH', `/api/agent/${agent.uid}/state?slug=who-2`, { key: owner.key, body: { patch: { note: 'from owner' } } });
    expect(byOwner.status).toBe(200);
    expect(byOwner.body.state.note).toBe('from owner');
    // Owning some machine is not enough: the agent must have delegated that machine's owner.
    const otherOwner = await server.call('GET', `/api/agent/${agent.uid}/state?slug=who-2-other`, { key: stranger.key });
    expect(otherOwner.status).toBe(403);
    expect(otherOwner.body.error.message).toContain('has not delegated');
    // A private machine the caller cannot read stays invisible.
    const hidden = await server.call('GET', `/api/agent/${agent.uid}/state?slug=who-2`, { key: stranger.key });
    expect(hidden.status).toBe(404);
  });

  it('refuses a member who is not the owner to act for another agent', async () => {
    const { owner, agent } = await team('who-3', true);
    const colleague = await mintKey(server);
    await server.call('POST', '/api/chain/who-3/admins', { key: owner.key, body: { uid: colleague.uid, role: 'admin' } });
    const res = await server.call('GET', `/api/agent/${agent.uid}/plans/current?slug=who-3`, { key: colleague.key });
    expect(res.status).toBe(403);
  });
});

describe('plans', () => {
  it('overwrites the one draft, locks it as v1 with a plan_locked row, and makes it current', async () => {
    const { agent, owner } = await team('plans-1');
    await delegate(agent, 'plans-1', 'read');
    const base = `/api/agent/${agent.uid}/plans`;
    expect((await server.call('POST', `${base}/draft`, { key: agent.key, body: { slug: 'plans-1', plan: plan('first try') } })).status).toBe(200);
    const saved = await server.call('POST', `${base}/draft`, { key: agent.key, body: { slug: 'plans-1', plan: plan('second try') } });
    expect(saved.body.plan).toMatchObject({ plan_id: 'plans-1@draft', status: 'draft', version: null, plan: { title: 'second try' } });
    expect(saved.body.plan.plan.steps.map((s: { id: string }) => s.id)).toEqual(['s1', 's2']);

    const locked = await server.call('POST', `${base}/lock`, { key: agent.key, body: { slug: 'plans-1' } });
    expect(locked.status).toBe(200);
    expect(locked.body).toMatchObject({ plan: { plan_id: 'plans-1@v1', status: 'locked', version: 1, plan: { title: 'second try' } }, superseded: [] });
    expect(locked.body.plan.plan_sha256).toBe(saved.body.plan.plan_sha256);

    const draft = await server.call('GET', `${base}/draft?slug=plans-1`, { key: agent.key });
    expect(draft.body.plan).toBeNull();
    const current = await server.call('GET', `${base}/current?slug=plans-1`, { key: owner.key });
    expect(current.body.plan.plan_id).toBe('plans-1@v1');

    const rows = await server.call('GET', '/api/chain/plans-1/activity?type=plan_locked', { key: owner.key });
    expect(rows.body.rows).toHaveLength(1);
    expect(rows.body.rows[0]).toMatchObject({ id: locked.body.audit_row_id, actor_uid: agent.uid });

    const state = await server.call('GET', `/api/agent/${agent.uid}/state`, { key: agent.key });
    expect(state.body.protocol).toMatchObject({ current_plan_id: 'plans-1@v1', current_plan_slug: 'plans-1' });
    expect(state.body.state.protocol.current_plan_id).toBe('plans-1@v1');
  });

  it('locks a body as the next version, supersedes the earlier one and lists history newest first', async () => {
    const { agent } = await team('plans-2');
    const base = `/api/agent/${agent.uid}/plans`;
    await server.call('POST', `${base}/lock`, { key: agent.key, body: { slug: 'plans-2', plan: plan('v1') } });
    const second = await server.call('POST', `${base}/lock`, { key: agent.key, body: { slug: 'plans-2', plan: plan('v2') } });
    expect(second.body).toMatchObject({ plan: { plan_id: 'plans-2@v2', version: 2 }, superseded: ['plans-2@v1'] });
    const history = await server.call('GET', `${base}/history?slug=plans-2&limit=1`, { key: agent.key });
    expect(history.body.plans.map((p: { plan_id: string }) => p.plan_id)).toEqual(['plans-2@v2']);
    const older = await server.call('GET', `${base}/history?slug=plans-2&cursor=${history.body.next_cursor}`, { key: agent.key });
    expect(older.body.plans[0]).toMatchObject({ plan_id: 'plans-2@v1', status: 'superseded', superseded_by: 'plans-2@v2' });
    expect(older.body.next_cursor).toBeNull();
    const one = await server.call('GET', `${base}/plans-2@v1?slug=plans-2`, { key: agent.key });
    expect(one.body.plan.plan.title).toBe('v1');
    expect((await server.call('GET', `${base}/plans-2@v9?slug=plans-2`, { key: agent.key })).status).toBe(404);
  });

  it('never gives two concurrent locks the same version', async () => {
    const { agent, owner } = await team('plans-3');
    await delegate(agent, 'plans-3', 'write');
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        server.call('POST', `/api/agent/${agent.uid}/plans/lock`, { key: i % 2 ? agent.key : owner.key, body: { slug: 'plans-3', plan: plan(`p${i}`) } }),
      ),
    );
    expect(results.every((r) => r.status === 200)).toBe(true);
    const versions = results.map((r) => r.body.plan.version).sort((a: number, b: number) => a - b);
    expect(versions).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
    const history = await server.call('GET', `/api/agent/${agent.uid}/plans/history?slug=plans-3`, { key: agent.key });
    expect(history.body.plans.filter((p: { status: string }) => p.status === 'locked')).toHaveLength(1);
    expect(history.body.plans[0]).toMatchObject({ version: 12, status: 'locked' });
    const rows = await server.call('GET', '/api/chain/plans-3/activity?type=plan_locked&limit=100', { key: owner.key });
    expect(rows.body.rows).toHaveLength(12);
    expect(new Set(rows.body.rows.map((r: { transition_id: string }) => r.transition_id)).size).toBe(12);
    const state = await server.call('GET', `/api/agent/${agent.uid}/state`, { key: agent.key });
    expect(state.body.protocol.current_plan_id).toBe('plans-3@v12');
  });

  it('answers 422 when there is nothing to lock and 409 on a paused machine', async () => {
    const { agent, owner } = await team('plans-4');
    const empty = await server.call('POST', `/api/agent/${agent.uid}/plans/lock`, { key: agent.key, body: { slug: 'plans-4' } });
    expect(empty.status).toBe(422);
    expect(empty.body.error.message).toContain('save a draft');
    const paused = await server.call('POST', '/api/chain/plans-4/status', { key: owner.key, body: { status: 'paused' } });
    expect(paused.status).toBe(200);
    const refused = await server.call('POST', `/api/agent/${agent.uid}/plans/lock`, { key: agent.key, body: { slug: 'plans-4', plan: plan('x') } });
    expect(refused.status).toBe(409);
  });

  it('refuses duplicate step ids and requires a slug', async () => {
    const { agent } = await team('plans-5');
    const dup = await server.call('POST', `/api/agent/${agent.uid}/plans/draft`, {
      key: agent.key,
      body: {
        slug: 'plans-5',
        plan: {
          title: 't',
          goal: 'g',
          steps: [
            { id: 'a', action: 'x' },
            { id: 'a', action: 'y' },
          ],
        },
      },
    });
    expect(dup.status).toBe(400);
    expect(dup.body.error.message).toContain('"a" appears twice');
    expect((await server.call('GET', `/api/agent/${agent.uid}/plans/current`, { key: agent.key })).status).toBe(400);
  });
});

describe('sandbox over HTTP', () => {
  it('answers 200 for code that fails, with exit code, output, units and quota, and lists runs newest first', async () => {
    const { key, uid } = await mintKey(server);
    const ok = await server.call('POST', `/api/agent/${uid}/sandbox/run`, { key, body: { code: 'print(6 * 7)', timeout_ms: 30_000 } });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ ok: true, exit_code: 0, stdout: '42\n', stderr: '', stdout_truncated: false, slug: null });
    expect(ok.body.units_mz).toBeGreaterThan(0);
    expect(ok.body.quota).toMatchObject({ runs_used: 1, runs_limit: 20, units_limit_mz: 60_000, window_hours: 24 });
    const failed = await server.call('POST', `/api/agent/${uid}/sandbox/run`, { key, body: { code: 'raise SystemExit(5)', timeout_ms: 30_000 } });
    expect(failed.status).toBe(200);
    expect(failed.body).toMatchObject({ ok: false, exit_code: 5 });
    const runs = await server.call('GET', `/api/agent/${uid}/sandbox/runs?limit=1`, { key });
    expect(runs.body.runs.map((r: { run_id: string }) => r.run_id)).toEqual([failed.body.run_id]);
    const quota = await server.call('GET', `/api/agent/${uid}/sandbox/quota`, { key });
    expect(quota.body).toMatchObject({ runs_used: 2 });
    expect(quota.body.units_used_mz).toBe(ok.body.units_mz + failed.body.units_mz);
  });

  it('cannot read the server data dir from inside the sandbox', async () => {
    const { key, uid } = await mintKey(server);
    const code = `import os\nfor p in [${JSON.stringify(server.dataDir)}, ${JSON.stringify(path.join(server.dataDir, 'docs', 'keys.jsonl'))}]:\n    print(os.path.exists(p))`;
    const res = await server.call('POST', `/api/agent/${uid}/sandbox/run`, { key, body: { code, timeout_ms: 30_000 } });
    expect(res.body.stdout).toBe('False\nFalse\n');
  });
});

describe('skills', () => {
  it('previews a skill without a key, exactly as attach persists it', async () => {
    const preview = await server.call('GET', '/api/skills/preview?name=lock-a-plan');
    expect(preview.status).toBe(200);
    const file = await readFile(path.resolve('resources/skills/lock-a-plan.md'), 'utf8');
    expect(preview.body.body).toBe(file);
    expect(preview.body.description).toMatch(/plan/);
    const { key, uid } = await mintKey(server);
    const attached = await server.call('POST', `/api/agent/${uid}/skills/attach`, { key, body: { name: 'lock-a-plan' } });
    expect(attached.body).toMatchObject({ changed: true, skill: { name: 'lock-a-plan', sha256: preview.body.sha256, bytes: preview.body.bytes } });
    await expect(server.core.services.agents.skills.body(uid, 'lock-a-plan')).resolves.toBe(file);
  });

  it('attaches and detaches idempotently and lists what is attached', async () => {
    const { key, uid } = await mintKey(server);
    const attach = (name: string) => server.call('POST', `/api/agent/${uid}/skills/attach`, { key, body: { name } });
    expect((await attach('verify-a-chain')).body.changed).toBe(true);
    expect((await attach('verify-a-chain')).body.changed).toBe(false);
    await attach('getting-started');
    const list = await server.call('GET', `/api/agent/${uid}/skills`, { key });
    expect(list.body.skills.map((s: { name: string }) => s.name)).toEqual(['getting-started', 'verify-a-chain']);
    const detach = () => server.call('POST', `/api/agent/${uid}/skills/detach`, { key, body: { name: 'verify-a-chain' } });
    expect((await detach()).body).toMatchObject({ ok: true, name: 'verify-a-chain', changed: true });
    expect((await detach()).body.changed).toBe(false);
    const unknown = await attach('no-such-skill');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.message).toContain('getting-started');
  });

  it('ships a catalogue of at least 8 skills with name and description', async () => {
    const skills = await server.core.services.agents.skills.catalogue();
    expect(skills.length).toBeGreaterThanOrEqual(8);
    for (const s of skills) expect(s.description.length).toBeGreaterThan(20);
  });
});

describe('files', () => {
  it('keeps every version and reads the latest or a given one', async () => {
    const { key } = await mintKey(server);
    const write = (content: string, encoding = 'utf8') =>
      server.call('POST', '/api/agent/files/write', { key, body: { path: 'notes//a/./b.md', content, encoding } });
    const v1 = await write('one');
    expect(v1.body.file).toMatchObject({ path: 'notes/a/b.md', version: 1, bytes: 3 });
    await write('two');
    const v3 = await write(Buffer.from([0xff, 0x00, 0x01]).toString('base64'), 'base64');
    expect(v3.body.file.version).toBe(3);
    const latest = await server.call('GET', '/api/agent/files/read?path=notes/a/b.md', { key });
    expect(latest.body).toMatchObject({ version: 3, encoding: 'base64', content_encoding: 'base64', content: '/wAB' });
    const asText = await server.call('GET', '/api/agent/files/read?path=notes/a/b.md&encoding=utf8', { key });
    expect(asText.status).toBe(422);
    const first = await server.call('GET', '/api/agent/files/read?path=notes/a/b.md&version=1', { key });
    expect(first.body).toMatchObject({ version: 1, content: 'one', encoding: 'utf8', content_encoding: 'utf8' });
    const asBase64 = await server.call('GET', '/api/agent/files/read?path=notes/a/b.md&version=1&encoding=base64', { key });
    expect(asBase64.body).toMatchObject({ encoding: 'utf8', content_encoding: 'base64', content: Buffer.from('one').toString('base64') });
    const history = await server.call('GET', '/api/agent/files/history?path=notes/a/b.md', { key });
    expect(history.body.versions.map((v: { version: number }) => v.version)).toEqual([3, 2, 1]);
    await server.call('POST', '/api/agent/files/write', { key, body: { path: 'other.txt', content: 'x' } });
    const list = await server.call('GET', '/api/agent/files/list?prefix=notes/', { key });
    expect(list.body.files).toEqual([expect.objectContaining({ path: 'notes/a/b.md', latest_version: 3, bytes: 3 })]);
    expect((await server.call('GET', '/api/agent/files/read?path=missing.txt', { key })).status).toBe(404);
  });

  it('refuses content over 1 MiB once decoded, whatever the surface', async () => {
    const { uid } = await mintKey(server);
    const files = server.core.services.agents.files;
    await expect(files.write(uid, { path: 'big.bin', content: 'x'.repeat(1024 * 1024 + 1), encoding: 'utf8' })).rejects.toMatchObject({
      code: 'PAYLOAD_TOO_LARGE',
      status: 413,
    });
    await expect(files.write(uid, { path: 'ok.bin', content: Buffer.alloc(1024 * 1024).toString('base64'), encoding: 'base64' })).resolves.toMatchObject({
      bytes: 1024 * 1024,
    });
    await expect(files.write(uid, { path: 'bad.bin', content: 'not base64!', encoding: 'base64' })).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
  });

  it('refuses path traversal, absolute paths and control characters', async () => {
    const { key } = await mintKey(server);
    for (const p of ['../x', 'a/../../b', '/etc/passwd', 'a\u0000b', 'a\\..\\b', '..', 'a/\u001b[2J']) {
      const res = await server.call('POST', '/api/agent/files/write', { key, body: { path: p, content: 'x' } });
      expect(res.status, JSON.stringify(p)).toBe(400);
    }
    const list = await server.call('GET', '/api/agent/files/list', { key });
    expect(list.body.files).toEqual([]);
  });

  it('keeps stores apart: an agent reads only its own unless it delegated a machine owner', async () => {
    const { agent, owner, stranger } = await team('files-1');
    await server.call('POST', '/api/agent/files/write', { key: agent.key, body: { path: 'secret.txt', content: 'mine' } });
    expect((await server.call('GET', '/api/agent/files/read?path=secret.txt', { key: stranger.key })).status).toBe(404);
    expect((await server.call('GET', `/api/agent/files/read?path=secret.txt&uid=${agent.uid}`, { key: stranger.key })).status).toBe(403);
    expect((await server.call('GET', `/api/agent/files/read?path=secret.txt&uid=${agent.uid}&slug=files-1`, { key: owner.key })).status).toBe(403);
    await delegate(agent, 'files-1', 'read');
    const byOwner = await server.call('GET', `/api/agent/files/read?path=secret.txt&uid=${agent.uid}&slug=files-1`, { key: owner.key });
    expect(byOwner.body.content).toBe('mine');
  });
});

describe('state', () => {
  it('applies JSON merge patches and keeps the protocol member read-only', async () => {
    const { key, uid } = await mintKey(server);
    const empty = await server.call('GET', `/api/agent/${uid}/state`, { key });
    expect(empty.body).toMatchObject({ revision: 0, updated_at: null, protocol: { current_plan_id: null } });
    const patch = (p: unknown) => server.call('PATCH', `/api/agent/${uid}/state`, { key, body: { patch: p } });
    await patch({ a: { b: 1, c: 2 }, list: [1, 2], gone: true });
    const next = await patch({ a: { c: null, d: 3 }, list: [3], gone: null });
    expect(next.body.revision).toBe(2);
    expect(next.body.state).toMatchObject({ a: { b: 1, d: 3 }, list: [3] });
    expect(next.body.state).not.toHaveProperty('gone');
    const protocol = await patch({ protocol: { current_plan_id: 'forged' } });
    expect(protocol.status).toBe(400);
    const big = await patch({ blob: 'x'.repeat(70_000) });
    expect(big.status).toBe(413);
  });
});

describe('agent directory', () => {
  it('shows display name, skills and public machines, never private ones, without a key', async () => {
    const { key, uid } = await mintKey(server);
    await createMachine(server, key, { slug: 'dir-public', isPublic: true });
    await createMachine(server, key, { slug: 'dir-private' });
    await server.call('PATCH', `/api/agent/${uid}/state`, { key, body: { patch: { display_name: 'Directory Dora', secret: 'hidden' } } });
    await server.call('POST', `/api/agent/${uid}/skills/attach`, { key, body: { name: 'getting-started' } });
    const one = await server.call('GET', `/api/agents/${uid}`);
    expect(one.status).toBe(200);
    expect(one.body.agent).toEqual({
      uid,
      display_name: 'Directory Dora',
      skills: ['getting-started'],
      public_machines: ['dir-public'],
      created_at: expect.any(String),
    });
    expect(JSON.stringify(one.body)).not.toContain('hidden');
    const search = await server.call('GET', '/api/agents?q=dora');
    expect(search.body.agents.map((a: { uid: string }) => a.uid)).toEqual([uid]);
    expect((await server.call('GET', '/api/agents/unotanagent')).status).toBe(404);
  });
});
