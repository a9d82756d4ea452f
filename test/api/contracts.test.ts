import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { createTemplateCatalogue } from '../../src/domain/contracts/template-catalogue.js';
import { createFakeClock, tickStartMs, TICK_MS } from '../../src/lib/clock.js';
import { createMachine, mintKey } from '../helpers/server.js';
import { useServer } from '../helpers/use-server.js';
import { openSse as openStream } from '../helpers/sse.js';
import { callOp } from '../helpers/call-op.js';

const T0 = 2_287_000_000;
const clock = createFakeClock(tickStartMs(T0));
let slugN = 0;

const server = useServer({}, clock);
beforeAll(async () => {
  // Deploy is tested against a fixture template; the curated catalogue is another area's files.
  const fixtures = createTemplateCatalogue(fileURLToPath(new URL('../fixtures/contract-templates', import.meta.url)));
  Object.assign(server.core.services.contracts.templates, fixtures);
});

const heartbeat = (every = 2) => ({
  name: 'heartbeat',
  states: { running: { initial: true }, stopped: { terminal: true } },
  transitions: [
    {
      from: 'running',
      to: 'running',
      operator: 'KO42',
      trigger: { kind: 'every', every_ticks: every },
      post_actions: [{ type: 'emit', event: 'beat', payload: { n: 1 } }],
    },
    { from: 'running', to: 'stopped', operator: 'KO42', condition: 'input.stop == true' },
  ],
});

/** A machine with an owner, plus an operator, a viewer and a stranger. */
async function setup(isPublic = false) {
  const slug = `ct-${++slugN}-${Date.now().toString(36)}`;
  const owner = await mintKey(server);
  const operator = await mintKey(server);
  const viewer = await mintKey(server);
  const stranger = await mintKey(server);
  await createMachine(server, owner.key, { slug, isPublic });
  for (const [who, role] of [
    [operator, 'operator'],
    [viewer, 'viewer'],
  ] as const) {
    const res = await server.call('POST', `/api/chain/${slug}/admins`, { key: owner.key, body: { uid: who.uid, role } });
    expect(res.status).toBe(200);
  }
  const create = async (definition: unknown = heartbeat(), key = operator.key) => {
    const res = await server.call('POST', `/api/chain/${slug}/contracts`, { key, body: { definition } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.contract.id as string;
  };
  const base = `/api/chain/${slug}/contracts`;
  return { slug, base, owner, operator, viewer, stranger, create };
}

async function runAt(tick: number) {
  clock.set(tickStartMs(tick));
  await server.core.services.contracts.scheduler.runDue();
  await server.core.services.contracts.settled();
}

const nowTick = () => Math.floor(clock.now() / TICK_MS);

async function chainCount(slug: string, key: string) {
  const res = await server.call('GET', `/api/chain/${slug}/activity?limit=200`, { key });
  return res.body.rows.length as number;
}

describe('create, read and list', () => {
  it('creates a contract from a definition, audits it, and reads it back with its transitions', async () => {
    const t = await setup();
    const before = await chainCount(t.slug, t.owner.key);
    const created = await server.call('POST', t.base, { key: t.operator.key, body: { definition: heartbeat(), name: 'pulse' } });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({
      ok: true,
      template_id: null,
      contract: { name: 'pulse', slug: t.slug, status: 'active', current_state: 'running', current_version_no: 1, fire_count: 0, next_fire: nowTick() + 2 },
    });
    expect(created.body.contract.id).toMatch(/^ct_/);
    expect(await chainCount(t.slug, t.owner.key)).toBe(before + 1);
    const id = created.body.contract.id;
    const got = await server.call('GET', `${t.base}/${id}`, { key: t.viewer.key });
    expect(got.status).toBe(200);
    expect(got.body.transitions).toEqual([]);
    const list = await server.call('GET', t.base, { key: t.viewer.key });
    expect(list.body.contracts.map((c: any) => c.id)).toEqual([id]);
    const custom = await server.call('POST', `${t.base}/custom`, { key: t.operator.key, body: { definition: heartbeat(5) } });
    expect(custom.status).toBe(200);
  });

  it('answers 400 with the exact path of a bad definition', async () => {
    const t = await setup();
    const bad = heartbeat() as any;
    bad.transitions[0].trigger = { kind: 'cron', cron: '99 * * * *' };
    const res = await server.call('POST', t.base, { key: t.operator.key, body: { definition: bad } });
    expect(res.status).toBe(400);
    expect(res.body.error.details.path).toBe('transitions[0].trigger.cron');
    bad.transitions[0] = { from: 'running', to: 'running', operator: 'NOPE_OP_1' };
    const op = await server.call('POST', t.base, { key: t.operator.key, body: { definition: bad } });
    expect(op.body.error.details.path).toBe('transitions[0].operator');
  });

  it('refuses a viewer (403), a stranger on a private machine (404) and no key (401)', async () => {
    const t = await setup();
    expect((await server.call('POST', t.base, { key: t.viewer.key, body: { definition: heartbeat() } })).status).toBe(403);
    expect((await server.call('POST', t.base, { key: t.stranger.key, body: { definition: heartbeat() } })).status).toBe(404);
    expect((await server.call('GET', t.base, { key: t.stranger.key })).status).toBe(404);
    expect((await server.call('GET', t.base)).status).toBe(401);
  });

  it('deploys a template with a parameter, from both deploy paths', async () => {
    const t = await setup();
    const res = await server.call('POST', '/api/contracts/templates/fixture-heartbeat/deploy', {
      key: t.operator.key,
      body: { slug: t.slug, params: { every_ticks: 7 } },
    });
    expect(res.status).toBe(200);
    expect(res.body.template_id).toBe('fixture-heartbeat');
    expect(res.body.contract.definition.transitions[0].trigger.every_ticks).toBe(7);
    const viaCreate = await server.call('POST', t.base, { key: t.operator.key, body: { template_id: 'fixture-heartbeat' } });
    expect(viaCreate.body.contract).toMatchObject({ template_id: 'fixture-heartbeat', name: 'fixture_heartbeat' });
    const unknown = await server.call('POST', '/api/contracts/templates/fixture-heartbeat/deploy', {
      key: t.operator.key,
      body: { slug: t.slug, params: { colour: 'red' } },
    });
    expect(unknown.status).toBe(400);
    expect((await server.call('POST', '/api/contracts/templates/no-such-template/deploy', { key: t.operator.key, body: { slug: t.slug } })).status).toBe(404);
    expect((await server.call('POST', '/api/contracts/templates/fixture-heartbeat/deploy', { key: t.stranger.key, body: { slug: t.slug } })).status).toBe(404);
  });

  it('shows integrity to anyone who can read the machine and hides private ones', async () => {
    const t = await setup();
    const id = await t.create();
    const ok = await server.call('GET', `${t.base}/${id}/integrity`, { key: t.viewer.key });
    expect(ok.body).toMatchObject({ ok: true, match: true, current_version_no: 1 });
    expect(ok.body.stored_hash).toBe(ok.body.live_hash);
    expect((await server.call('GET', `${t.base}/${id}/integrity`)).status).toBe(404);
  });
});

describe('driven transitions', () => {
  it('drives a transition, writes a transition row and a chain row, and returns the proof digest', async () => {
    const t = await setup();
    const id = await t.create();
    const before = await chainCount(t.slug, t.owner.key);
    const res = await server.call('POST', `${t.base}/${id}/transition`, { key: t.operator.key, body: { to: 'stopped', input: { stop: true } } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ ok: true, previous_state: 'running', new_state: 'stopped', tick_number: nowTick() });
    expect(res.body.proof_digest).toMatch(/^[0-9a-f]{64}$/);
    expect(await chainCount(t.slug, t.owner.key)).toBe(before + 1);
    const got = await server.call('GET', `${t.base}/${id}`, { key: t.viewer.key });
    expect(got.body.contract).toMatchObject({ current_state: 'stopped', fire_count: 1, next_fire: null });
    expect(got.body.transitions[0]).toMatchObject({ success: true, triggered_by: 'caller', from_state: 'running', to_state: 'stopped' });
  });

  it('answers 400 condition_failed and still records the failed attempt', async () => {
    const t = await setup();
    const id = await t.create();
    const res = await server.call('POST', `${t.base}/${id}/transition`, { key: t.operator.key, body: { to: 'stopped', input: { stop: false } } });
    expect(res.status).toBe(400);
    expect(res.body.error.details.code).toBe('condition_failed');
    const missing = await server.call('POST', `${t.base}/${id}/transition`, { key: t.operator.key, body: { to: 'stopped' } });
    expect(missing.body.error.message).toContain('input.stop');
    const audit = await server.call('GET', `${t.base}/${id}/audit?success=false`, { key: t.viewer.key });
    expect(audit.body.transitions.map((r: any) => r.error)).toEqual(['condition_failed', 'condition_failed']);
    const none = await server.call('POST', `${t.base}/${id}/transition`, { key: t.operator.key, body: { to: 'nowhere' } });
    expect(none.status).toBe(400);
    expect(none.body.error).toMatchObject({ message: 'No transition: running → nowhere', details: { code: 'no_transition' } });
    expect((await server.call('POST', `${t.base}/${id}/transition`, { key: t.viewer.key, body: { to: 'stopped' } })).status).toBe(403);
  });
});

describe('versions', () => {
  it('bumps the version on PATCH, rolls back with a new row, and reads versions (owner edits only)', async () => {
    const t = await setup();
    const id = await t.create();
    const denied = await server.call('PATCH', `${t.base}/${id}`, { key: t.operator.key, body: { definition: heartbeat(9) } });
    expect(denied.status).toBe(403);
    const patched = await server.call('PATCH', `${t.base}/${id}`, { key: t.owner.key, body: { definition: heartbeat(9), note: 'slower' } });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ version_no: 2, contract: { current_version_no: 2 } });
    const rolled = await server.call('POST', `${t.base}/${id}/rollback`, { key: t.owner.key, body: { to_version: 1 } });
    expect(rolled.body).toMatchObject({ version_no: 3 });
    expect(rolled.body.contract.definition.transitions[0].trigger.every_ticks).toBe(2);
    const versions = await server.call('GET', `${t.base}/${id}/versions`, { key: t.viewer.key });
    expect(versions.body.current_version_no).toBe(3);
    expect(versions.body.versions.map((v: any) => [v.n, v.rolled_back_from, v.note])).toEqual([
      [3, 1, 'rollback to version 1'],
      [2, null, 'slower'],
      [1, null, 'created'],
    ]);
    const v2 = await server.call('GET', `${t.base}/${id}/versions/2`, { key: t.viewer.key });
    expect(v2.body.version.definition.transitions[0].trigger.every_ticks).toBe(9);
    expect((await server.call('GET', `${t.base}/${id}/versions/7`, { key: t.viewer.key })).status).toBe(404);
    const dropsState = { ...heartbeat(), states: { other: { initial: true } }, transitions: [] };
    const refused = await server.call('PATCH', `${t.base}/${id}`, { key: t.owner.key, body: { definition: dropsState } });
    expect(refused.status).toBe(400);
    expect(refused.body.error.details.path).toBe('states');
  });
});

describe('scheduling controls and planning', () => {
  it('pauses, resumes, skips, fires now and freezes, each by an operator', async () => {
    const t = await setup();
    const id = await t.create(heartbeat(3));
    const start = nowTick();
    expect((await callOp(server, 'contracts.pauseContract', { slug: t.slug, id }, { key: t.viewer.key })).status).toBe(403);
    expect((await callOp(server, 'contracts.pauseContract', { slug: t.slug, id }, { key: t.operator.key })).body).toMatchObject({
      status: 'paused',
      next_fire: null,
    });
    expect((await callOp(server, 'contracts.resumeContract', { slug: t.slug, id }, { key: t.operator.key })).body).toMatchObject({
      status: 'active',
      next_fire: start + 3,
    });
    expect((await callOp(server, 'contracts.skipNextFire', { slug: t.slug, id }, { key: t.operator.key })).body).toMatchObject({
      skipped_tick: start + 3,
      next_fire: start + 6,
    });
    const fired = await callOp(server, 'contracts.fireNow', { slug: t.slug, id }, { key: t.operator.key });
    expect(fired.body).toMatchObject({ fired: true, new_state: 'running', transition: { triggered_by: 'fire_now' } });
    await runAt(start + 6);
    const audit = await server.call('GET', `${t.base}/${id}/audit`, { key: t.viewer.key });
    expect(audit.body.transitions.map((r: any) => r.triggered_by)).toEqual(['fire_now', 'trigger']);
    expect((await callOp(server, 'contracts.freezeContract', { slug: t.slug, id }, { key: t.operator.key })).body).toMatchObject({
      status: 'frozen',
      next_fire: null,
    });
    expect((await callOp(server, 'contracts.resumeContract', { slug: t.slug, id }, { key: t.operator.key })).status).toBe(409);
  });

  it('lets only the owner kill a contract, with a reason on the chain', async () => {
    const t = await setup();
    const id = await t.create();
    const url = `/api/core/agent/kill/${id}`;
    expect((await server.call('POST', url, { body: { slug: t.slug, reason: 'x' } })).status).toBe(401);
    expect((await server.call('POST', url, { key: t.operator.key, body: { slug: t.slug, reason: 'x' } })).status).toBe(403);
    const killed = await server.call('POST', url, { key: t.owner.key, body: { slug: t.slug, reason: 'stop the spend' } });
    expect(killed.body).toMatchObject({ ok: true, status: 'killed', killed_tick: nowTick() });
    const rows = await server.call('GET', `/api/chain/${t.slug}/activity?type=contract.killed`, { key: t.owner.key });
    expect(rows.body.rows).toHaveLength(1);
    expect((await server.call('POST', `${t.base}/${id}/transition`, { key: t.operator.key, body: { to: 'stopped', input: { stop: true } } })).status).toBe(409);
  });

  it('dry-runs and simulates without writing anything', async () => {
    const t = await setup();
    const id = await t.create();
    const chainBefore = await chainCount(t.slug, t.owner.key);
    const dry = await server.call('POST', `${t.base}/${id}/dry-run`, { key: t.operator.key, body: { input: { stop: true } } });
    expect(dry.status).toBe(200);
    expect(dry.body).toMatchObject({ current_state: 'running', would_fire: true });
    expect(dry.body.results.map((r: any) => [r.to, r.outcome])).toEqual([
      ['running', 'pass'],
      ['stopped', 'fire'],
    ]);
    const later = await server.call('POST', `${t.base}/${id}/dry-run`, { key: t.operator.key, body: { at_tick: nowTick() + 2, input: {} } });
    expect(later.body.results.map((r: any) => r.outcome)).toEqual(['fire', 'filtered']);
    const inline = await server.call('POST', '/api/contracts/simulate', {
      key: t.stranger.key,
      body: { definition: heartbeat(), to: 'stopped', input: { stop: false } },
    });
    expect(inline.body).toMatchObject({ would_fire: false, results: [{ outcome: 'filtered' }] });
    const stored = await server.call('POST', '/api/contracts/simulate', { key: t.viewer.key, body: { slug: t.slug, contract_id: id, input: { stop: true } } });
    expect(stored.body.would_fire).toBe(true);
    expect((await server.call('POST', '/api/contracts/simulate', { key: t.stranger.key, body: { slug: t.slug, contract_id: id } })).status).toBe(404);
    expect(await chainCount(t.slug, t.owner.key)).toBe(chainBefore);
    const audit = await server.call('GET', `${t.base}/${id}/audit`, { key: t.viewer.key });
    expect(audit.body.transitions).toEqual([]);
  });

  it('predicts next fires and previews, owner only, and the scheduler then fires those ticks', async () => {
    const t = await setup();
    const id = await t.create(heartbeat(4));
    expect((await server.call('GET', `${t.base}/${id}/next-fires`, { key: t.operator.key })).status).toBe(403);
    const next = await server.call('GET', `${t.base}/${id}/next-fires?count=3`, { key: t.owner.key });
    const ticks = next.body.fires.map((f: any) => f.tick_number);
    expect(ticks).toEqual([1, 2, 3].map((k) => nowTick() + 4 * k));
    for (let tick = nowTick(); tick <= ticks[2]; tick++) await runAt(tick);
    const audit = await server.call('GET', `${t.base}/${id}/audit`, { key: t.viewer.key });
    expect(audit.body.transitions.map((r: any) => r.tick_number)).toEqual(ticks);
    expect((await server.call('GET', `${t.base}/${id}/preview`, { key: t.viewer.key })).status).toBe(403);
    const preview = await server.call('GET', `${t.base}/${id}/preview`, { key: t.owner.key });
    expect(preview.body).toMatchObject({ fire_count: 3, current_state: 'running', next_fire: ticks[2] + 4, last_transition: { tick_number: ticks[2] } });
  });

  it('notes in the singular when a single scheduled fire follows', async () => {
    const t = await setup();
    const once = {
      name: 'once',
      states: { waiting: { initial: true }, done: { terminal: true } },
      transitions: [{ from: 'waiting', to: 'done', operator: 'KO42', trigger: { kind: 'one_shot', at_tick: nowTick() + 5 } }],
    };
    const id = await t.create(once);
    const next = await server.call('GET', `${t.base}/${id}/next-fires?count=3`, { key: t.owner.key });
    expect(next.body.fires).toHaveLength(1);
    expect(next.body.note).toBe('Only 1 scheduled fire follows; after it no scheduled transition is due');
  });
});

describe('audit, verify, export and import', () => {
  it('verifies the proof chain, pages the audit, and reports tampering of the definition', async () => {
    const t = await setup();
    const id = await t.create(heartbeat(1));
    for (let k = 1; k <= 5; k++) await runAt(nowTick() + 1);
    const verify = await server.call('POST', `${t.base}/${id}/verify`, { key: t.viewer.key });
    expect(verify.body).toMatchObject({ valid: true, broken_at: null, current_state: 'running', total_transitions: 5 });
    const page1 = await server.call('GET', `${t.base}/${id}/audit?limit=2`, { key: t.viewer.key });
    const page2 = await server.call('GET', `${t.base}/${id}/audit?limit=2&cursor=${page1.body.next_cursor}`, { key: t.viewer.key });
    expect([...page1.body.transitions, ...page2.body.transitions].map((r: any) => r.id)).toEqual([1, 2, 3, 4].map((n) => `${id}:${n}`));
    const record = await server.core.store.docs.get<any>('contracts', id);
    await server.core.store.docs.put('contracts', id, { ...record, definition: { ...record.definition, name: 'tampered' } });
    const integrity = await server.call('GET', `${t.base}/${id}/integrity`, { key: t.viewer.key });
    expect(integrity.body.match).toBe(false);
  });

  it('exports owner-only and imports with clean runtime state; export, import, export is stable', async () => {
    const t = await setup();
    const id = await t.create(heartbeat(1));
    await runAt(nowTick() + 1);
    expect((await server.call('GET', `${t.base}/${id}/export`, { key: t.operator.key })).status).toBe(403);
    const first = await server.call('GET', `${t.base}/${id}/export`, { key: t.owner.key });
    expect(first.body.envelope).toMatchObject({ format: 'core.contract/1', name: 'heartbeat', source: { slug: t.slug, contract_id: id } });
    expect(JSON.stringify(first.body.envelope)).not.toMatch(/watermark|fire_count|transitions":\[\{"id/);
    const imported = await server.call('POST', `${t.base}/import`, { key: t.operator.key, body: { envelope: first.body.envelope } });
    expect(imported.body.contract).toMatchObject({ fire_count: 0, current_state: 'running', current_version_no: 1 });
    const second = await server.call('GET', `${t.base}/${imported.body.contract.id}/export`, { key: t.owner.key });
    const stable = ({ name, template_id, definition, definition_hash, format }: any) => ({ name, template_id, definition, definition_hash, format });
    expect(stable(second.body.envelope)).toEqual(stable(first.body.envelope));
    const altered = { ...first.body.envelope, definition: { ...first.body.envelope.definition, name: 'x' } };
    expect((await server.call('POST', `${t.base}/import`, { key: t.operator.key, body: { envelope: altered } })).status).toBe(400);
  });
});

describe('events and oracles', () => {
  it('feeds emitted events to members with a since_tick watermark and refuses outsiders', async () => {
    const t = await setup(true);
    const id = await t.create(heartbeat(1));
    for (let k = 0; k < 3; k++) await runAt(nowTick() + 1);
    const all = await server.call('GET', `/api/chain/${t.slug}/events`, { key: t.viewer.key });
    expect(all.body.events.map((e: any) => [e.name, e.contract_id])).toEqual([
      ['beat', id],
      ['beat', id],
      ['beat', id],
    ]);
    const after = await server.call('GET', `/api/chain/${t.slug}/events?since_tick=${all.body.events[0].tick_number}&limit=1`, { key: t.viewer.key });
    expect(after.body.events).toHaveLength(1);
    expect(after.body.next_since_tick).toBe(all.body.events[1].tick_number);
    expect((await server.call('GET', `/api/chain/${t.slug}/events?name=nothing`, { key: t.viewer.key })).body.events).toEqual([]);
    expect((await server.call('GET', `/api/chain/${t.slug}/events`, { key: t.stranger.key })).status).toBe(403);
  });

  it('lists oracle contracts with their latest reading and a series', async () => {
    const t = await setup();
    const oracle = { ...heartbeat(1), oracle: { field: 'price' } };
    oracle.transitions[1] = { from: 'running', to: 'running', operator: 'KO42', condition: 'price > 0' } as any;
    const id = await t.create(oracle);
    for (const price of [3, 5, 8]) {
      expect((await server.call('POST', `${t.base}/${id}/transition`, { key: t.operator.key, body: { to: 'running', input: { price } } })).status).toBe(200);
    }
    const res = await server.call('GET', `/api/chain/${t.slug}/oracles?series=2`, { key: t.viewer.key });
    expect(res.body.oracles).toHaveLength(1);
    expect(res.body.oracles[0]).toMatchObject({ contract_id: id, oracle: { field: 'price' }, latest: { value: 8 } });
    expect(res.body.oracles[0].series.map((r: any) => r.value)).toEqual([5, 8]);
  });
});

describe('streams', () => {
  function openSse(path: string, key: string, lastEventId?: string) {
    const headers: Record<string, string> = { authorization: `Bearer ${key}` };
    if (lastEventId) headers['last-event-id'] = lastEventId;
    return openStream(`${server.url}${path}`, headers);
  }

  it('pushes transitions to viewers and events to the owner, and resumes after Last-Event-ID', async () => {
    const t = await setup();
    const id = await t.create(heartbeat(1));
    await runAt(nowTick() + 1);
    const transitions = await openSse(`${t.base}/${id}/transitions/stream`, t.viewer.key, `${id}:0`);
    const events = await openSse(`/api/chain/${t.slug}/events/stream`, t.owner.key);
    expect(transitions.res.status).toBe(200);
    await transitions.until(1);
    await runAt(nowTick() + 1);
    await transitions.until(2);
    await events.until(1);
    expect(transitions.events.map((e) => e.id)).toEqual([`${id}:1`, `${id}:2`]);
    expect(transitions.events[0]!.event).toBe('contract.transitioned');
    expect(events.events[0]).toMatchObject({ event: 'event.emitted' });
    expect(JSON.parse(events.events[0]!.data)).toMatchObject({ name: 'beat', contract_id: id });
    transitions.close();
    events.close();
    expect((await fetch(`${server.url}/api/chain/${t.slug}/events/stream`, { headers: { authorization: `Bearer ${t.viewer.key}` } })).status).toBe(403);
  });
});

describe('over MCP', () => {
  it('drives a transition with core_contract_transition and reads it back with core_stream', async () => {
    const t = await setup();
    const id = await t.create();
    const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/api/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${t.operator.key}` } },
    });
    const client = new Client({ name: 'contracts-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const driven = await client.callTool({ name: 'core_contract_transition', arguments: { slug: t.slug, id, to: 'stopped', input: { stop: true } } });
      expect(driven.structuredContent).toMatchObject({ ok: true, new_state: 'stopped' });
      const refused = await client.callTool({ name: 'core_contract_transition', arguments: { slug: t.slug, id, to: 'running' } });
      expect(refused.isError).toBe(true);
      const streamed = await client.callTool({
        name: 'core_stream',
        arguments: { action: 'contract_transitions', slug: t.slug, id, last_event_id: `${id}:0`, max_events: 1, max_ms: 60_000 },
      });
      const got = streamed.structuredContent as { events: Array<{ id: string; event: string }> };
      expect(got.events.map((e) => [e.id, e.event])).toEqual([[`${id}:1`, 'contract.transitioned']]);
    } finally {
      await client.close();
    }
  });
});

describe('public directory', () => {
  it('pages the public directory newest first across its pages, leaving out private machines between public ones', async () => {
    const pub = await setup(true);
    const priv = await setup(false);
    const name = `pagescan${slugN}`;
    const ids: string[] = [];
    for (let n = 0; n < 3; n++) {
      ids.push(await pub.create({ ...heartbeat(3), name }));
      await priv.create({ ...heartbeat(3), name });
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { body: { contracts: Array<{ id: string }>; next_cursor: string | null } } = await server.call(
        'GET',
        `/api/contracts/public?q=${name}&limit=1${cursor === null ? '' : `&cursor=${cursor}`}`,
      );
      expect(page.body.contracts).toHaveLength(1);
      seen.push(page.body.contracts[0]!.id);
      cursor = page.body.next_cursor;
    } while (cursor !== null);
    expect(seen).toEqual([...ids].reverse());
    const two = await server.call('GET', `/api/contracts/public?q=${name}&limit=2`);
    expect(two.body.contracts.map((c: { id: string }) => c.id)).toEqual([ids[2], ids[1]]);
    expect((await server.call('GET', `/api/contracts/public?q=${name}&limit=2&cursor=${two.body.next_cursor}`)).body).toMatchObject({
      contracts: [expect.objectContaining({ id: ids[0] })],
      next_cursor: null,
    });
  });

  it('lists only public machines, with audit, next fires, superposition and cross-machine subscribers', async () => {
    const pub = await setup(true);
    const priv = await setup(false);
    const id = await pub.create(heartbeat(3));
    const hidden = await priv.create(heartbeat(3));
    const listener = await mintKey(server);
    const lslug = `listener-${slugN}`;
    await createMachine(server, listener.key, { slug: lslug, isPublic: true });
    const sub = await server.call('POST', `/api/chain/${lslug}/contracts`, {
      key: listener.key,
      body: {
        definition: {
          name: 'sub',
          states: { s: { initial: true } },
          transitions: [{ from: 's', to: 's', operator: 'KO42', trigger: { kind: 'on_event', event: 'beat', machine: pub.slug } }],
        },
      },
    });
    expect(sub.status).toBe(200);
    const list = await server.call('GET', `/api/contracts/public?slug=${pub.slug}`);
    expect(list.body.contracts.map((c: any) => c.id)).toEqual([id]);
    const everything = await server.call('GET', '/api/contracts/public?limit=200');
    expect(everything.body.contracts.map((c: any) => c.id)).not.toContain(hidden);
    expect((await server.call('GET', `/api/contracts/public/${hidden}`)).status).toBe(404);
    expect((await server.call('GET', `/api/contracts/public/${id}`)).body.contract).toMatchObject({ id, current_state: 'running' });
    const fires = await server.call('GET', `/api/contracts/public/${id}/next-fires`);
    expect(fires.body.fires).toHaveLength(10);
    const subs = await server.call('GET', `/api/contracts/public/${id}/subscribers`);
    expect(subs.body.subscribers).toEqual([{ slug: lslug, contract_id: sub.body.contract.id, events: ['beat'], since_tick: nowTick() }]);
    const sp = await server.call('GET', `/api/contracts/public/${id}/superposition`);
    expect(sp.body.branches.map((b: any) => [b.to, b.condition])).toEqual([
      ['running', null],
      ['stopped', 'input.stop == true'],
    ]);
    await runAt(nowTick() + 3);
    const audit = await server.call('GET', `/api/contracts/public/${id}/audit`);
    expect(audit.body.transitions).toHaveLength(1);
    const subRows = await server.call('GET', `/api/chain/${lslug}/contracts/${sub.body.contract.id}/audit`, { key: listener.key });
    expect(subRows.body.transitions).toHaveLength(1);
  });
});
