import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { createFakeClock } from '../../src/lib/clock.js';
import { mintKey, spinUp } from '../helpers/server.js';
import { useServer } from '../helpers/use-server.js';
import { UNKNOWN_KEY_MESSAGE } from '../../src/errors.js';
import { storedDocText } from '../helpers/stored-docs.js';

const clock = createFakeClock();

const server = useServer({}, clock);

const machine = (slug: string, isPublic = false) => spinUp(server, slug, isPublic);

async function types(slug: string, key: string): Promise<string[]> {
  const res = await server.call('GET', `/api/chain/${slug}/activity?limit=100`, { key });
  return res.body.rows.map((r: { type: string }) => r.type);
}

describe('machine creation', () => {
  it('says which slug it chose when none was sent, and nothing extra when one was', async () => {
    const owner = await mintKey(server);
    const derived = await server.call('POST', '/api/chain/state-machines', { key: owner.key, body: {} });
    expect(derived.status).toBe(200);
    expect(derived.body.note).toBe(`No slug was sent, so the machine is named "${derived.body.machine.slug}" after your uid; send "slug" to choose the name.`);
    const named = await server.call('POST', '/api/chain/state-machines', { key: owner.key, body: { slug: 'named-one' } });
    expect(named.body.machine.slug).toBe('named-one');
    expect(named.body).not.toHaveProperty('note');
  });
});

describe('machine status', () => {
  it('pauses a machine so writes are refused with 409 while its chain stays readable, and audits each move', async () => {
    const { key } = await machine('status-one');
    const paused = await server.call('POST', '/api/chain/status-one/status', { key, body: { status: 'paused', reason: 'maintenance' } });
    expect(paused.status).toBe(200);
    expect(paused.body).toMatchObject({ slug: 'status-one', status: 'paused', previous_status: 'active' });
    const write = await server.call('POST', '/api/chain/status-one/event', { key, body: { type: 'x' } });
    expect(write.status).toBe(409);
    expect(write.body.error.code).toBe('CONFLICT');
    expect(write.body.error.message).toMatch(/paused/);
    expect((await server.call('POST', '/api/chain/status-one/file', { key, body: { name: 'a', sha256: 'a'.repeat(64), size: 1 } })).status).toBe(409);
    expect((await server.call('GET', '/api/chain/status-one/activity', { key })).status).toBe(200);
    await server.call('POST', '/api/chain/status-one/status', { key, body: { status: 'archived' } });
    expect((await server.call('POST', '/api/chain/status-one/state', { key, body: { state_hash: 'b'.repeat(64) } })).status).toBe(409);
    const back = await server.call('POST', '/api/chain/status-one/status', { key, body: { status: 'active' } });
    expect(back.body.previous_status).toBe('archived');
    expect((await server.call('POST', '/api/chain/status-one/event', { key, body: { type: 'x' } })).status).toBe(200);
    const rows = await types('status-one', key);
    expect(rows.filter((t) => t === 'machine.status_changed')).toHaveLength(3);
  });

  it('writes no row when the status does not change', async () => {
    const { key } = await machine('status-same');
    const res = await server.call('POST', '/api/chain/status-same/status', { key, body: { status: 'active' } });
    expect(res.body).toMatchObject({ status: 'active', previous_status: 'active' });
    expect(await types('status-same', key)).toEqual(['machine.created']);
  });

  it('refuses a status change from a viewer (403), a stranger on a private machine (404) and an anonymous caller (401)', async () => {
    const { key } = await machine('status-deny');
    const viewer = await mintKey(server);
    await server.call('POST', '/api/chain/status-deny/admins', { key, body: { uid: viewer.uid, role: 'viewer' } });
    expect((await server.call('POST', '/api/chain/status-deny/status', { key: viewer.key, body: { status: 'paused' } })).status).toBe(403);
    const stranger = await mintKey(server);
    expect((await server.call('POST', '/api/chain/status-deny/status', { key: stranger.key, body: { status: 'paused' } })).status).toBe(404);
    expect((await server.call('POST', '/api/chain/status-deny/status', { body: { status: 'paused' } })).status).toBe(401);
  });
});

describe('machine settings', () => {
  it('changes only the fields given, records the change, and never stores the password in clear', async () => {
    const { key } = await machine('settings-one');
    const res = await server.call('PATCH', '/api/chain/settings-one/settings', {
      key,
      body: { display_name: 'Settings One', password: 'correct horse battery' },
    });
    expect(res.status).toBe(200);
    expect(res.body.machine).toMatchObject({ display_name: 'Settings One', purpose: null, is_public: false, has_password: true });
    expect(JSON.stringify(res.body)).not.toContain('correct horse');
    const stored = await storedDocText(server.dataDir, 'machines');
    expect(stored).not.toContain('correct horse');
    expect(stored).toMatch(/scrypt\$16384\$8\$1\$/);
    expect(await types('settings-one', key)).toContain('machine.settings_changed');
    const cleared = await server.call('PATCH', '/api/chain/settings-one/settings', { key, body: { password: null, display_name: null } });
    expect(cleared.body.machine).toMatchObject({ has_password: false, display_name: null });
  });

  it('makes a machine public and back, and its visibility follows at once', async () => {
    const { key } = await machine('flip-flop');
    expect((await server.call('GET', '/api/chain/flip-flop/activity')).status).toBe(404);
    await server.call('PATCH', '/api/chain/flip-flop/settings', { key, body: { is_public: true } });
    expect((await server.call('GET', '/api/chain/flip-flop/activity')).status).toBe(200);
    await server.call('PATCH', '/api/chain/flip-flop/settings', { key, body: { is_public: false } });
    expect((await server.call('GET', '/api/chain/flip-flop/activity')).status).toBe(404);
  });
});

describe('unlock and share tokens', () => {
  it('trades the read password for a short-lived read token that expires and dies with the password', async () => {
    const { key } = await machine('locked-one');
    await server.call('PATCH', '/api/chain/locked-one/settings', { key, body: { password: 'open sesame 42' } });
    const wrong = await server.call('POST', '/api/chain/locked-one/unlock', { body: { password: 'nope nope' } });
    expect(wrong.status).toBe(403);
    const ok = await server.call('POST', '/api/chain/locked-one/unlock', { body: { password: 'open sesame 42', ttl_ticks: 10 } });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ slug: 'locked-one', scope: 'read' });
    const token = ok.body.share_token as string;
    expect((await server.call('GET', '/api/chain/locked-one/activity', { headers: { 'x-share-token': token } })).status).toBe(200);
    expect((await server.call('GET', `/api/chain/locked-one/activity?share_token=${token}`)).status).toBe(200);
    // Read-only: the token gives no role, so a write is still refused.
    const stranger = await mintKey(server);
    const write = await server.call('POST', '/api/chain/locked-one/event', { key: stranger.key, headers: { 'x-share-token': token }, body: {} });
    expect(write.status).toBe(403);
    clock.advance(11 * 777);
    expect((await server.call('GET', '/api/chain/locked-one/activity', { headers: { 'x-share-token': token } })).status).toBe(404);
    const again = await server.call('POST', '/api/chain/locked-one/unlock', { body: { password: 'open sesame 42' } });
    await server.call('PATCH', '/api/chain/locked-one/settings', { key, body: { password: 'another secret' } });
    expect((await server.call('GET', '/api/chain/locked-one/activity', { headers: { 'x-share-token': again.body.share_token } })).status).toBe(404);
  });

  it('rate limits wrong passwords and answers unknown and unprotected machines alike', async () => {
    const { key } = await machine('locked-two');
    await server.call('PATCH', '/api/chain/locked-two/settings', { key, body: { password: 'open sesame 42' } });
    for (let i = 0; i < 5; i++) await server.call('POST', '/api/chain/locked-two/unlock', { body: { password: 'bad guess' } });
    const limited = await server.call('POST', '/api/chain/locked-two/unlock', { body: { password: 'open sesame 42' } });
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('RATE_LIMITED');
    clock.advance(61_000);
    expect((await server.call('POST', '/api/chain/locked-two/unlock', { body: { password: 'open sesame 42' } })).status).toBe(200);
    await machine('unlocked-none');
    const none = await server.call('POST', '/api/chain/unlocked-none/unlock', { body: { password: 'whatever' } });
    const missing = await server.call('POST', '/api/chain/no-such-machine/unlock', { body: { password: 'whatever' } });
    expect(none.status).toBe(404);
    expect(missing.status).toBe(404);
    expect(none.body.error.message.replace('unlocked-none', 'X')).toBe(missing.body.error.message.replace('no-such-machine', 'X'));
  });

  it('grants reads of a private machine with a share token until share/disable revokes it at once', async () => {
    const { key } = await machine('shared-one');
    const set = await server.call('POST', '/api/chain/state-machines/shared-one/share/set', { key, body: {} });
    expect(set.status).toBe(200);
    expect(set.body.expires_at).toBeNull();
    const token = set.body.share_token as string;
    const stored = await storedDocText(server.dataDir, 'machines');
    expect(stored).not.toContain(token);
    const read = await server.call('GET', '/api/chain/state-machines/shared-one', { headers: { 'x-share-token': token } });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ role: null, machine: { share_enabled: true } });
    const off = await server.call('POST', '/api/chain/state-machines/shared-one/share/disable', { key, body: {} });
    expect(off.body).toMatchObject({ share_enabled: false, revoked: true });
    expect((await server.call('GET', '/api/chain/state-machines/shared-one', { headers: { 'x-share-token': token } })).status).toBe(404);
    const again = await server.call('POST', '/api/chain/state-machines/shared-one/share/disable', { key, body: {} });
    expect(again.body.revoked).toBe(false);
    expect(await types('shared-one', key)).toEqual(expect.arrayContaining(['machine.share_set', 'machine.share_disabled']));
  });

  it('stops honouring a share token after its expiry and refuses an expiry in the past', async () => {
    const { key } = await machine('shared-two');
    const past = await server.call('POST', '/api/chain/state-machines/shared-two/share/set', {
      key,
      body: { expires_at: new Date(clock.now() - 1000).toISOString() },
    });
    expect(past.status).toBe(400);
    const set = await server.call('POST', '/api/chain/state-machines/shared-two/share/set', {
      key,
      body: { expires_at: new Date(clock.now() + 60_000).toISOString() },
    });
    const token = set.body.share_token as string;
    expect((await server.call('GET', '/api/chain/shared-two/activity', { headers: { 'x-share-token': token } })).status).toBe(200);
    clock.advance(61_000);
    expect((await server.call('GET', '/api/chain/shared-two/activity', { headers: { 'x-share-token': token } })).status).toBe(404);
  });
});

describe('admins', () => {
  it('grants, changes and revokes roles with an audit row for each, and lists members', async () => {
    const { key, uid } = await machine('team-one');
    const member = await mintKey(server);
    const add = await server.call('POST', '/api/chain/team-one/admins', { key, body: { uid: member.uid, role: 'operator' } });
    expect(add.status).toBe(200);
    expect(add.body.admin).toMatchObject({ uid: member.uid, role: 'operator', granted_by: uid });
    expect((await server.call('POST', '/api/chain/team-one/event', { key: member.key, body: {} })).status).toBe(200);
    const dup = await server.call('POST', '/api/chain/team-one/admins', { key, body: { uid: member.uid, role: 'viewer' } });
    expect(dup.status).toBe(409);
    const change = await server.call('PATCH', `/api/chain/team-one/admins/${member.uid}`, { key, body: { role: 'viewer' } });
    expect(change.body.admin.role).toBe('viewer');
    expect((await server.call('POST', '/api/chain/team-one/event', { key: member.key, body: {} })).status).toBe(403);
    const list = await server.call('GET', '/api/chain/team-one/admins', { key: member.key });
    expect(list.body).toMatchObject({ owner_uid: uid, admins: [{ uid: member.uid, role: 'viewer' }] });
    const removed = await server.call('DELETE', `/api/chain/team-one/admins/${member.uid}`, { key });
    expect(removed.body).toMatchObject({ uid: member.uid, removed: true });
    expect((await server.call('DELETE', `/api/chain/team-one/admins/${member.uid}`, { key })).body.removed).toBe(false);
    expect((await server.call('GET', '/api/chain/team-one/admins', { key: member.key })).status).toBe(404);
    const rows = await types('team-one', key);
    expect(rows).toEqual(expect.arrayContaining(['admin.granted', 'admin.role_changed', 'admin.revoked']));
  });

  it('never lets anyone demote or remove the owner, nor grant above their own role', async () => {
    const { key, uid: ownerUid } = await machine('team-two');
    const admin = await mintKey(server);
    const operator = await mintKey(server);
    const other = await mintKey(server);
    await server.call('POST', '/api/chain/team-two/admins', { key, body: { uid: admin.uid, role: 'admin' } });
    await server.call('POST', '/api/chain/team-two/admins', { key, body: { uid: operator.uid, role: 'operator' } });
    const demote = await server.call('PATCH', `/api/chain/team-two/admins/${ownerUid}`, { key: admin.key, body: { role: 'viewer' } });
    expect(demote.status).toBe(403);
    expect(demote.body.error.message).toMatch(/owner/);
    expect((await server.call('DELETE', `/api/chain/team-two/admins/${ownerUid}`, { key })).status).toBe(403);
    expect((await server.call('POST', '/api/chain/team-two/admins', { key: admin.key, body: { uid: other.uid, role: 'admin' } })).status).toBe(200);
    expect((await server.call('POST', '/api/chain/team-two/admins', { key: operator.key, body: { uid: other.uid, role: 'viewer' } })).status).toBe(403);
    expect((await server.call('POST', '/api/chain/team-two/admins', { key, body: { uid: 'unoone', role: 'viewer' } })).status).toBe(404);
    expect((await server.call('POST', '/api/chain/team-two/admins', { body: { uid: other.uid, role: 'viewer' } })).status).toBe(401);
  });
});

describe('developer API keys', () => {
  it('mints a key shown once and stored as SHA-256, lists it without the raw value, and audits it', async () => {
    const { key } = await machine('keys-one');
    const created = await server.call('POST', '/api/chain/keys-one/api-keys', {
      key,
      body: { name: 'ci', scope: 'write', rate_limit_tier: 'standard' },
    });
    expect(created.status).toBe(200);
    const raw = created.body.api_key as string;
    expect(raw).toMatch(/^core_[a-z2-7]{40}$/);
    expect(created.body.key).toMatchObject({ name: 'ci', scope: 'write', kind: 'developer', rate_limit_tier: 'standard', key_prefix: raw.slice(0, 9) });
    const list = await server.call('GET', '/api/chain/keys-one/api-keys', { key });
    expect(JSON.stringify(list.body)).not.toContain(raw);
    expect(list.body.keys.map((k: { kind: string }) => k.kind).sort()).toEqual(['developer', 'machine']);
    expect(await storedDocText(server.dataDir, 'keys')).not.toContain(raw);
    expect(await types('keys-one', key)).toContain('api_key.created');
  });

  it("keeps every listed scope to the spec's read, write and admin: the machine key has kind machine, no scope, and the owner role", async () => {
    const { key } = await machine('keys-scope');
    await server.call('POST', '/api/chain/keys-scope/api-keys', { key, body: { name: 'a', scope: 'admin' } });
    await server.call('POST', '/api/chain/keys-scope/api-keys', { key, body: { name: 'r', scope: 'read' } });
    const keys = (await server.call('GET', '/api/chain/keys-scope/api-keys', { key })).body.keys as Array<{ kind: string; scope: string | null; role: string }>;
    for (const k of keys) expect([null, 'read', 'write', 'admin']).toContain(k.scope);
    expect(keys.find((k) => k.kind === 'machine')).toMatchObject({ scope: null, role: 'owner' });
    expect(
      keys
        .filter((k) => k.kind === 'developer')
        .map((k) => [k.scope, k.role])
        .sort(),
    ).toEqual([
      ['admin', 'admin'],
      ['read', 'viewer'],
    ]);
  });

  it('lets a developer key act only with its scope, on its own machine, as its own identity', async () => {
    const { key } = await machine('keys-two');
    await machine('keys-other');
    const write = (await server.call('POST', '/api/chain/keys-two/api-keys', { key, body: { name: 'w', scope: 'write' } })).body.api_key;
    const read = (await server.call('POST', '/api/chain/keys-two/api-keys', { key, body: { name: 'r', scope: 'read' } })).body.api_key;
    const appended = await server.call('POST', '/api/chain/keys-two/event', { key: write, body: { type: 'from-key' } });
    expect(appended.status).toBe(200);
    const rows = (await server.call('GET', '/api/chain/keys-two/activity?type=from-key', { key })).body.rows;
    expect(rows[0].actor_uid).toMatch(/^key:key_/);
    expect((await server.call('POST', '/api/chain/keys-two/event', { key: read, body: {} })).status).toBe(403);
    expect((await server.call('GET', '/api/chain/keys-two/activity', { key: read })).status).toBe(200);
    expect((await server.call('GET', '/api/chain/keys-two/api-keys', { key: write })).status).toBe(403);
    expect((await server.call('GET', '/api/chain/keys-other/activity', { key: write })).status).toBe(404);
    expect((await server.call('POST', '/api/chain/state-machines', { key: write, body: { slug: 'keys-made' } })).status).toBe(403);
  });

  it('refuses a revoked key on the next request and an expired key once its time has passed', async () => {
    const { key } = await machine('keys-three');
    const made = await server.call('POST', '/api/chain/keys-three/api-keys', { key, body: { name: 'soon', scope: 'read' } });
    const raw = made.body.api_key as string;
    expect((await server.call('GET', '/api/chain/keys-three/activity', { key: raw })).status).toBe(200);
    const revoked = await server.call('DELETE', `/api/chain/keys-three/api-keys/${made.body.key.id}`, { key });
    expect(revoked.body).toMatchObject({ id: made.body.key.id, revoked: true });
    expect((await server.call('GET', '/api/chain/keys-three/activity', { key: raw })).status).toBe(401);
    expect((await server.call('DELETE', `/api/chain/keys-three/api-keys/${made.body.key.id}`, { key })).body.revoked).toBe(false);
    expect((await server.call('DELETE', '/api/chain/keys-three/api-keys/key_nope', { key })).status).toBe(404);

    const expiring = await server.call('POST', '/api/chain/keys-three/api-keys', {
      key,
      body: { name: 'brief', scope: 'read', expires_at: new Date(clock.now() + 5_000).toISOString() },
    });
    const temp = expiring.body.api_key as string;
    expect((await server.call('GET', '/api/chain/keys-three/activity', { key: temp })).status).toBe(200);
    clock.advance(6_000);
    const late = await server.call('GET', '/api/chain/keys-three/activity', { key: temp });
    expect(late.status).toBe(401);
    expect(late.body.error.message).toBe(UNKNOWN_KEY_MESSAGE);
    const listed = (await server.call('GET', '/api/chain/keys-three/api-keys', { key })).body.keys;
    expect(listed.map((k: { name: string }) => k.name)).not.toContain('brief');
    const types3 = await types('keys-three', key);
    expect(types3).toContain('api_key.revoked');
    const past = await server.call('POST', '/api/chain/keys-three/api-keys', { key, body: { name: 'x', expires_at: new Date(clock.now() - 1).toISOString() } });
    expect(past.status).toBe(400);
  });

  it('keeps key management to admins: operators get 403, strangers 404, anonymous callers 401', async () => {
    const { key } = await machine('keys-four');
    const operator = await mintKey(server);
    await server.call('POST', '/api/chain/keys-four/admins', { key, body: { uid: operator.uid, role: 'operator' } });
    expect((await server.call('POST', '/api/chain/keys-four/api-keys', { key: operator.key, body: { name: 'x' } })).status).toBe(403);
    const stranger = await mintKey(server);
    expect((await server.call('GET', '/api/chain/keys-four/api-keys', { key: stranger.key })).status).toBe(404);
    expect((await server.call('GET', '/api/chain/keys-four/api-keys')).status).toBe(401);
  });

  it('lets only the owner revoke the machine key', async () => {
    const { key, machineKey } = await machine('keys-five');
    const admin = await mintKey(server);
    await server.call('POST', '/api/chain/keys-five/admins', { key, body: { uid: admin.uid, role: 'admin' } });
    const listed = (await server.call('GET', '/api/chain/keys-five/api-keys', { key })).body.keys;
    const machineKeyId = listed.find((k: { kind: string }) => k.kind === 'machine').id;
    expect((await server.call('DELETE', `/api/chain/keys-five/api-keys/${machineKeyId}`, { key: admin.key })).status).toBe(403);
    expect((await server.call('DELETE', `/api/chain/keys-five/api-keys/${machineKeyId}`, { key })).body.revoked).toBe(true);
    expect((await server.call('GET', '/api/chain/keys-five/activity', { key: machineKey })).status).toBe(401);
  });
});

describe('public machine lists', () => {
  it('lists public machines without owners and never a private one, in aggregate/list, newest, active, recent and fleet', async () => {
    const pub = await machine('listed-public', true);
    const priv = await machine('listed-private', false);
    await server.call('POST', '/api/chain/listed-public/event', { key: pub.key, body: { type: 'pub-ping' } });
    await server.call('POST', '/api/chain/listed-private/event', { key: priv.key, body: { type: 'priv-ping' } });
    clock.advance(777);

    const list = await server.call('GET', '/api/chain/aggregate/list?limit=1000');
    const slugs = list.body.machines.map((m: { slug: string }) => m.slug);
    expect(slugs).toContain('listed-public');
    expect(slugs).not.toContain('listed-private');
    expect(list.body.machines[0]).not.toHaveProperty('owner_uid');
    expect(JSON.stringify(list.body)).not.toContain(pub.uid);

    const newest = await server.call('GET', '/api/chain/newest?limit=1000');
    expect(newest.body.machines.map((m: { slug: string }) => m.slug)).toContain('listed-public');
    expect(JSON.stringify(newest.body)).not.toContain('listed-private');

    const active = await server.call('GET', '/api/chain/active');
    expect(active.body.window_ticks).toBe(60);
    expect(active.body.machines.find((m: { slug: string }) => m.slug === 'listed-public')).toMatchObject({ transition_count: 2 });
    expect(JSON.stringify(active.body)).not.toContain('listed-private');

    const recent = await server.call('GET', '/api/chain/recent?limit=1000');
    expect(recent.body.rows.some((r: { slug: string; type: string }) => r.slug === 'listed-public' && r.type === 'pub-ping')).toBe(true);
    expect(JSON.stringify(recent.body)).not.toContain('listed-private');
    expect(JSON.stringify(recent.body)).not.toContain('priv-ping');
    const typed = await server.call('GET', '/api/chain/recent?type=pub-ping');
    expect(typed.body.rows.every((r: { type: string }) => r.type === 'pub-ping')).toBe(true);

    const fleet = await server.call('GET', '/api/chain/fleet');
    expect(fleet.body.machines_total).toBeGreaterThan(fleet.body.machines_public);
    expect(JSON.stringify(fleet.body)).not.toContain('listed-private');
  });

  it('ranks active machines by their rows in the window, walks past private ones to fill the limit, and sums every row in fleet', async () => {
    const made = {
      quiet: await machine('rank-quiet', true),
      loud: await machine('rank-loud-private', false),
      a: await machine('rank-a', true),
      b: await machine('rank-b', true),
      c: await machine('rank-c', true),
    };
    await server.call('POST', '/api/chain/rank-quiet/event', { key: made.quiet.key, body: { type: 'before-window' } });
    clock.advance(777 * 100);
    const rowsBefore = (await server.call('GET', '/api/chain/fleet')).body.rows_total;
    const write = async (slug: string, key: string, n: number): Promise<void> => {
      for (let i = 0; i < n; i++) expect((await server.call('POST', `/api/chain/${slug}/event`, { key, body: { type: 'rank' } })).status).toBe(200);
    };
    await write('rank-loud-private', made.loud.key, 5);
    await write('rank-a', made.a.key, 3);
    await write('rank-c', made.c.key, 2);
    clock.advance(777);
    await write('rank-b', made.b.key, 2);
    clock.advance(777);

    const top = await server.call('GET', '/api/chain/active?window_ticks=5&limit=3');
    expect(top.body.machines.map((m: { slug: string; transition_count: number }) => [m.slug, m.transition_count])).toEqual([
      ['rank-a', 3],
      ['rank-b', 2],
      ['rank-c', 2],
    ]);
    expect(top.body.machines[1].last_tick).toBe(top.body.machines[2].last_tick + 1);
    expect(JSON.stringify(top.body)).not.toContain('rank-loud-private');
    expect(JSON.stringify(top.body)).not.toContain('rank-quiet');
    const one = await server.call('GET', '/api/chain/active?window_ticks=5&limit=1');
    expect(one.body.machines.map((m: { slug: string }) => m.slug)).toEqual(['rank-a']);
    const wide = await server.call('GET', '/api/chain/active?window_ticks=500&limit=100');
    expect(wide.body.machines.find((m: { slug: string }) => m.slug === 'rank-quiet')).toMatchObject({ transition_count: 2 });

    expect((await server.call('GET', '/api/chain/fleet')).body.rows_total).toBe(rowsBefore + 12);
  });

  it('serves recent from a one-tick cache and drops a machine from it as soon as it turns private', async () => {
    const pub = await machine('feed-cache', true);
    await server.call('POST', '/api/chain/feed-cache/event', { key: pub.key, body: { type: 'cached-one' } });
    clock.advance(777);
    const first = await server.call('GET', '/api/chain/recent?limit=1000');
    expect(first.body.rows.some((r: { type: string }) => r.type === 'cached-one')).toBe(true);
    await server.call('POST', '/api/chain/feed-cache/event', { key: pub.key, body: { type: 'cached-two' } });
    const same = await server.call('GET', '/api/chain/recent?limit=1000');
    expect(same.body.tick).toBe(first.body.tick);
    expect(same.body.rows.some((r: { type: string }) => r.type === 'cached-two')).toBe(false);
    clock.advance(777);
    const next = await server.call('GET', '/api/chain/recent?limit=1000');
    expect(next.body.rows.some((r: { type: string }) => r.type === 'cached-two')).toBe(true);
    await server.call('PATCH', '/api/chain/feed-cache/settings', { key: pub.key, body: { is_public: false } });
    const hidden = await server.call('GET', '/api/chain/recent?limit=1000');
    expect(JSON.stringify(hidden.body)).not.toContain('feed-cache');
    expect(JSON.stringify((await server.call('GET', '/api/chain/active')).body)).not.toContain('feed-cache');
  });
});

describe('through MCP', () => {
  it('runs the settings, keys and fleet actions as tools with an action field, with the same rules', async () => {
    const { key } = await machine('mcp-machine');
    const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/api/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${key}` } },
    });
    const client = new Client({ name: 'machines-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const paused = await client.callTool({ name: 'core_machine_settings', arguments: { action: 'set_status', slug: 'mcp-machine', status: 'paused' } });
      expect(paused.isError).toBeFalsy();
      expect(paused.structuredContent).toMatchObject({ status: 'paused', previous_status: 'active' });
      const refused = await client.callTool({ name: 'core_chain_write', arguments: { action: 'append_event', slug: 'mcp-machine' } });
      expect(refused.isError).toBe(true);
      expect(JSON.stringify(refused.content)).toMatch(/CONFLICT/);
      const made = await client.callTool({ name: 'core_api_keys', arguments: { action: 'create', slug: 'mcp-machine', name: 'via-mcp', scope: 'read' } });
      expect((made.structuredContent as { api_key: string }).api_key).toMatch(/^core_/);
      const fleet = await client.callTool({ name: 'core_machines', arguments: { action: 'fleet' } });
      expect((fleet.structuredContent as { by_status: { paused: number } }).by_status.paused).toBeGreaterThanOrEqual(1);
    } finally {
      await client.close();
    }
  });
});
