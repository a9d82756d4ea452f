import { describe, expect, it } from 'vitest';
import { createFakeClock } from '../../src/lib/clock.js';
import { forensicScore } from '../../src/domain/edge/forensic.js';
import { createMachine, mintKey } from '../helpers/server.js';
import { serverForTest } from '../helpers/use-server.js';

async function setup(opts: { isPublic?: boolean; clock?: ReturnType<typeof createFakeClock> } = {}) {
  const server = await serverForTest({}, opts.clock);
  const owner = await mintKey(server);
  await createMachine(server, owner.key, { slug: 'av-lab', isPublic: opts.isPublic ?? false });
  const device = await server.call('POST', '/api/av/devices', { key: owner.key, body: { slug: 'av-lab', name: 'laptop-1', os: 'linux' } });
  expect(device.status).toBe(200);
  const tick = () => Math.floor((opts.clock?.now() ?? Date.now()) / 777);
  const claim = (scores: Array<{ score_id: string; value: number }>, extra: Record<string, unknown> = {}, key = owner.key) =>
    server.call('POST', '/api/av/claim', {
      key,
      body: {
        slug: 'av-lab',
        device_id: device.body.device_id,
        claim_type: 'process_spawn',
        claim_payload: { exe: '/tmp/x' },
        captured_at_tick: tick(),
        scores,
        ...extra,
      },
    });
  return { server, owner, deviceId: device.body.device_id as string, claim, tick };
}

describe('forensic score', () => {
  it('is the noisy-OR of the detector scores, counting a detector once', () => {
    expect(forensicScore([])).toBe(0);
    expect(forensicScore([{ score_id: 'a', value: 0.9 }])).toBe(0.9);
    expect(
      forensicScore([
        { score_id: 'a', value: 0.5 },
        { score_id: 'b', value: 0.5 },
      ]),
    ).toBe(0.75);
    expect(
      forensicScore([
        { score_id: 'a', value: 0.5 },
        { score_id: 'a', value: 0.6 },
      ]),
    ).toBe(0.6);
  });
});

describe('devices', () => {
  it('registers a device as an audited row and lists it for viewers of the machine', async () => {
    const t = await setup();
    const list = await t.server.call('GET', '/api/av/devices?slug=av-lab', { key: t.owner.key });
    expect(list.status).toBe(200);
    expect(list.body.devices).toEqual([expect.objectContaining({ device_id: t.deviceId, name: 'laptop-1', os: 'linux' })]);
    expect(t.deviceId).toMatch(/^dev_/);
    const rows = await t.server.call('GET', '/api/chain/av-lab/activity?type=av.device.registered', { key: t.owner.key });
    expect(rows.body.rows[0].transition_id).toBe(list.body.devices[0].transition_id);
  });

  it('needs a key (401), admin to register (403) and hides a private machine from strangers (404)', async () => {
    const t = await setup();
    const viewer = await mintKey(t.server);
    await t.server.call('POST', '/api/chain/av-lab/admins', { key: t.owner.key, body: { uid: viewer.uid, role: 'viewer' } });
    const stranger = await mintKey(t.server);
    expect((await t.server.call('GET', '/api/av/devices?slug=av-lab')).status).toBe(401);
    expect((await t.server.call('GET', '/api/av/devices?slug=av-lab', { key: viewer.key })).status).toBe(200);
    const register = (key: string) => t.server.call('POST', '/api/av/devices', { key, body: { slug: 'av-lab', name: 'x', os: 'linux' } });
    expect((await register(viewer.key)).status).toBe(403);
    expect((await register(stranger.key)).status).toBe(404);
    expect((await t.server.call('GET', '/api/av/devices?slug=av-lab', { key: stranger.key })).status).toBe(404);
  });
});

describe('claims', () => {
  it('audits a claim below the threshold without firing, with its score and fingerprint', async () => {
    const t = await setup();
    const res = await t.claim([{ score_id: 'HF8', value: 0.3 }]);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ ok: true, s_forensic: 0.3, fired: false, blockers: ['composite_below_theta'], contracts_fired: [], notified: [] });
    expect(res.body.fingerprint).toMatch(/^[0-9a-f]{64}$/);
    const rows = await t.server.call('GET', '/api/chain/av-lab/activity?type=av.claim.recorded', { key: t.owner.key });
    expect(rows.body.rows[0].id).toBe(res.body.audit_row_id);
    const again = await t.claim([{ score_id: 'HF8', value: 0.1 }]);
    expect(again.body.fingerprint).toBe(res.body.fingerprint);
  });

  it('fires the machine contracts that listen to av.threat.detected when the score reaches the threshold', async () => {
    const t = await setup();
    const contract = await t.server.call('POST', '/api/chain/av-lab/contracts', {
      key: t.owner.key,
      body: {
        definition: {
          name: 'quarantine',
          states: { clean: { initial: true }, quarantined: {} },
          transitions: [
            { from: 'clean', to: 'quarantined', operator: 'KO42', condition: 's_forensic >= 0.9', trigger: { kind: 'on_event', event: 'av.threat.detected' } },
          ],
        },
      },
    });
    expect(contract.status).toBe(200);
    const id = contract.body.contract.id;
    const low = await t.claim([{ score_id: 'a', value: 0.75 }]);
    expect(low.body).toMatchObject({ fired: true, blockers: [], contracts_fired: [] });
    const high = await t.claim([
      { score_id: 'a', value: 0.8 },
      { score_id: 'b', value: 0.7 },
    ]);
    expect(high.body).toMatchObject({ s_forensic: 0.94, fired: true, contracts_fired: [id] });
    const state = await t.server.call('GET', `/api/chain/av-lab/contracts/${id}`, { key: t.owner.key });
    expect(state.body.contract.current_state).toBe('quarantined');
  });

  it('refuses an unknown device (404), a capture tick in the future (422), an operator-less caller (403) and no key (401)', async () => {
    const t = await setup({ isPublic: true });
    expect((await t.claim([], { device_id: 'dev_missing' })).status).toBe(404);
    const future = await t.claim([], { captured_at_tick: t.tick() + 1000 });
    expect(future.status).toBe(422);
    expect(future.body.error.message).toMatch(/in the future/);
    const stranger = await mintKey(t.server);
    expect((await t.claim([], {}, stranger.key)).status).toBe(403);
    const anon = await t.server.call('POST', '/api/av/claim', {
      body: { slug: 'av-lab', device_id: t.deviceId, claim_type: 'x', claim_payload: {}, captured_at_tick: 1 },
    });
    expect(anon.status).toBe(401);
    const bad = await t.claim([{ score_id: 'a', value: 2 }]);
    expect(bad.status).toBe(400);
  });
});

describe('threat lists', () => {
  it('lists the claims of a window, newest first, and drops them as the window passes', async () => {
    const clock = createFakeClock(Date.now());
    const t = await setup({ isPublic: true, clock });
    await t.claim([{ score_id: 'a', value: 0.2 }]);
    clock.advance(1000);
    await t.claim([{ score_id: 'a', value: 0.9 }]);
    const day = await t.server.call('GET', '/api/av/threats?slug=av-lab&window=24h');
    expect(day.status).toBe(200);
    expect(day.body).toMatchObject({ slug: 'av-lab', window: '24h', count: 2 });
    expect(day.body.threats.map((x: any) => x.fired)).toEqual([true, false]);
    expect(day.body.threats[0]).toMatchObject({ device_id: t.deviceId, claim_type: 'process_spawn', s_forensic: 0.9 });
    expect(day.body.threats[0]).not.toHaveProperty('claim_payload');
    clock.advance(2 * 86_400_000);
    expect((await t.server.call('GET', '/api/av/threats?slug=av-lab&window=24h')).body.count).toBe(0);
    expect((await t.server.call('GET', '/api/av/threats?slug=av-lab&window=7d')).body.count).toBe(2);
    const defaulted = await t.server.call('GET', '/api/av/threats?slug=av-lab');
    expect(defaulted.body.window).toBe('24h');
    expect((await t.server.call('GET', '/api/av/threats?slug=av-lab&window=yesterday')).status).toBe(400);
  });

  it('hides the threats of a private machine from anyone without access (404)', async () => {
    const t = await setup();
    await t.claim([{ score_id: 'a', value: 0.9 }]);
    expect((await t.server.call('GET', '/api/av/threats?slug=av-lab')).status).toBe(404);
    expect((await t.server.call('GET', '/api/av/mesh-feed?slug=av-lab')).status).toBe(404);
    expect((await t.server.call('GET', '/api/av/threats?slug=av-lab', { key: t.owner.key })).body.count).toBe(1);
  });
});

describe('mesh feed', () => {
  it('notifies a machine that follows another through a contract, and counts it in its mesh feed', async () => {
    const t = await setup({ isPublic: true });
    const peer = await mintKey(t.server);
    await createMachine(t.server, peer.key, { slug: 'av-peer', isPublic: true });
    const follow = await t.server.call('POST', '/api/chain/av-peer/contracts', {
      key: peer.key,
      body: {
        definition: {
          name: 'follow-lab',
          states: { watching: { initial: true } },
          transitions: [{ from: 'watching', to: 'watching', operator: 'KO42', trigger: { kind: 'on_event', machine: 'av-lab', event: 'av.threat.detected' } }],
        },
      },
    });
    expect(follow.status).toBe(200);
    const before = await t.server.call('GET', '/api/av/mesh-feed?slug=av-peer');
    expect(before.body.subscriptions).toEqual([{ publisher_slug: 'av-lab', tag: 'av.threat.detected', fire_count: 0, last_fired_tick: null }]);

    expect((await t.claim([{ score_id: 'a', value: 0.1 }])).body.notified).toEqual([]);
    const fired = await t.claim([{ score_id: 'a', value: 0.95 }]);
    expect(fired.body.notified).toEqual(['av-peer']);
    const after = await t.server.call('GET', '/api/av/mesh-feed?slug=av-peer');
    expect(after.body.subscriptions).toEqual([{ publisher_slug: 'av-lab', tag: 'av.threat.detected', fire_count: 1, last_fired_tick: fired.body.tick }]);
    const rows = await t.server.call('GET', '/api/chain/av-peer/activity?type=av.mesh.notified');
    expect(rows.body.rows).toHaveLength(1);
    expect((await t.server.call('GET', '/api/av/mesh-feed?slug=av-lab')).body.subscriptions).toEqual([]);
  });

  it('does not name a private follower to the publisher, nor a private publisher in a public feed', async () => {
    const t = await setup({ isPublic: true });
    const peer = await mintKey(t.server);
    await createMachine(t.server, peer.key, { slug: 'av-hidden', isPublic: false });
    await t.server.call('POST', '/api/chain/av-hidden/contracts', {
      key: peer.key,
      body: {
        definition: {
          name: 'follow-lab',
          states: { s: { initial: true } },
          transitions: [{ from: 's', to: 's', operator: 'KO42', trigger: { kind: 'on_event', machine: 'av-lab', event: 'av.threat.detected' } }],
        },
      },
    });
    const fired = await t.claim([{ score_id: 'a', value: 0.95 }]);
    expect(fired.body.notified).toEqual([]);
    const own = await t.server.call('GET', '/api/av/mesh-feed?slug=av-hidden', { key: peer.key });
    expect(own.body.subscriptions[0]).toMatchObject({ publisher_slug: 'av-lab', fire_count: 1 });
  });
});
