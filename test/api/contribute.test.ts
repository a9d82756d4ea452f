import { describe, expect, it } from 'vitest';
import { createFakeClock, TICK_MS } from '../../src/lib/clock.js';
import type { NodeAuditRow } from '../../src/domain/economy/node-audit-repository.js';
import { createMachine, mintKey } from '../helpers/server.js';
import { useServer } from '../helpers/use-server.js';

const clock = createFakeClock();
let n = 0;

const server = useServer({}, clock);

/** A user with a public machine whose token has supply, and `count` envelopes (worth 2 each) issued to the user. */
async function holder(count: number) {
  const user = await mintKey(server);
  const slug = `seat-${++n}`;
  const machineKey = (await createMachine(server, user.key, { slug, isPublic: true })).machineKey;
  await server.call('POST', `/api/chain/${slug}/tally/token/genesis`, {
    key: user.key,
    body: { name: 'S', symbol: 'S', max_supply: 10_000, mint_rate_per_tick: 100 },
  });
  clock.advance(TICK_MS);
  const envelopes: string[] = [];
  for (let i = 0; i < count; i++) {
    const res = await server.call('POST', '/api/compute', { key: machineKey, body: { operators: ['NM19'], inputs: { m: 1, a: i + 1 } } });
    envelopes.push(res.body.envelope.token_id);
  }
  return { ...user, slug, envelopes };
}

const bond = (key: string | undefined, body: Record<string, unknown>) => server.call('POST', '/api/contribute/bond', { ...(key ? { key } : {}), body });
const token = async (slug: string, id: string) => (await server.call('GET', `/api/chain/${slug}/tally/token/${id}`)).body.token;
const auditRows = async () => server.core.store.logs.read<NodeAuditRow>('node/contribute');

describe('contribution policy and census (contribute.getPolicy, contribute.getCensus)', () => {
  it('publishes the policy to anyone', async () => {
    const res = await server.call('GET', '/api/contribute/policy');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ min_bond_value: 10, heartbeat_window_ticks: 4633, max_seats_per_uid: 1, default_mode: 'verifier' });
    expect(res.body.modes.map((m: { mode: string }) => m.mode)).toEqual(['verifier', 'archiver', 'relay']);
  });

  it('counts seats by state and mode and totals bonds, without naming anyone', async () => {
    const a = await holder(5);
    const before = (await server.call('GET', '/api/contribute/census')).body;
    await bond(a.key, { token_ids: a.envelopes, mode: 'relay' });
    const after = (await server.call('GET', '/api/contribute/census')).body;
    expect(after.seats_active).toBe(before.seats_active + 1);
    expect(after.by_mode.relay).toBe((before.by_mode.relay ?? 0) + 1);
    expect(after.bonded_envelopes).toBe(before.bonded_envelopes + 5);
    expect(after.bonded_value).toBe(before.bonded_value + 10);
    const text = JSON.stringify(after);
    expect(text).not.toContain(a.uid);
    expect(text).not.toContain('seat_');
    expect(Object.keys(after).sort()).toEqual(['bonded_envelopes', 'bonded_value', 'by_mode', 'ok', 'seats_active', 'seats_lapsed', 'tick']);
  });
});

describe('bonding (contribute.bond, contribute.getStatus)', () => {
  it('bonds envelopes in place: they become immovable while their owner stays the same, and a seat opens', async () => {
    const a = await holder(6);
    expect((await server.call('GET', '/api/contribute/status', { key: a.key })).body.seat).toBeNull();
    const res = await bond(a.key, { token_ids: a.envelopes.slice(0, 5) });
    expect(res.status).toBe(200);
    expect(res.body.seat).toMatchObject({
      uid: a.uid,
      mode: 'verifier',
      state: 'active',
      bonded_value: 10,
      bonded_token_ids: a.envelopes.slice(0, 5),
      last_heartbeat_tick: clock.tick(),
      lapses_at_tick: clock.tick() + 4633,
    });
    const t = await token(a.slug, a.envelopes[0]!);
    expect(t).toMatchObject({ bonded: true, locked_for_vote: false, issued_to: a.uid });
    const more = await bond(a.key, { token_ids: [a.envelopes[5]!] });
    expect(more.body.seat.bonded_value).toBe(12);
    expect((await server.call('GET', '/api/contribute/status', { key: a.key })).body.seat.seat_id).toBe(res.body.seat.seat_id);
    expect((await auditRows()).filter((r) => r.subject === res.body.seat.seat_id).map((r) => r.type)).toEqual([
      'contribute.seat_opened',
      'contribute.bond_added',
    ]);
  });

  it("refuses a bond under the minimum (422), of envelopes not the caller's (404), already bonded (409), or without a key (401)", async () => {
    const a = await holder(6);
    const b = await mintKey(server);
    const small = await bond(a.key, { token_ids: a.envelopes.slice(0, 2) });
    expect(small.status).toBe(422);
    expect(small.body.error.message).toContain('at least 10');
    expect((await bond(b.key, { token_ids: a.envelopes.slice(0, 5) })).status).toBe(404);
    expect((await bond(a.key, { token_ids: ['nope.1'] })).status).toBe(404);
    expect((await bond(a.key, { token_ids: a.envelopes.slice(0, 5) })).status).toBe(200);
    const twice = await bond(a.key, { token_ids: [a.envelopes[0]!] });
    expect(twice.status).toBe(409);
    expect(twice.body.error.message).toContain('bonded');
    expect((await bond(undefined, { token_ids: a.envelopes })).status).toBe(401);
    expect((await server.call('GET', '/api/contribute/status')).status).toBe(401);
  });

  it('refuses a mode the policy does not list with 400', async () => {
    const a = await holder(5);
    const res = await bond(a.key, { token_ids: a.envelopes, mode: 'miner' });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toContain('verifier, archiver, relay');
  });
});

describe('heartbeat, mode and lapse (contribute.heartbeat, contribute.setMode)', () => {
  it('keeps a seat alive with heartbeats and lets it lapse after a silent window, computed from ticks', async () => {
    const a = await holder(5);
    await bond(a.key, { token_ids: a.envelopes });
    clock.advance(4000 * TICK_MS);
    const hb = await server.call('POST', '/api/contribute/heartbeat', { key: a.key, body: {} });
    expect(hb.status).toBe(200);
    expect(hb.body.seat).toMatchObject({ state: 'active', last_heartbeat_tick: clock.tick() });
    clock.advance(4000 * TICK_MS);
    expect((await server.call('GET', '/api/contribute/status', { key: a.key })).body.seat.state).toBe('active');
    clock.advance(634 * TICK_MS);
    expect((await server.call('GET', '/api/contribute/status', { key: a.key })).body.seat.state).toBe('lapsed');
    const late = await server.call('POST', '/api/contribute/heartbeat', { key: a.key, body: {} });
    expect(late.status).toBe(409);
    expect(late.body.error.message).toContain('lapsed');
    expect((await server.call('POST', '/api/contribute/mode', { key: a.key, body: { mode: 'relay' } })).status).toBe(409);
  });

  it('never changes the mode on a heartbeat: a mode field is refused with 400', async () => {
    const a = await holder(5);
    await bond(a.key, { token_ids: a.envelopes, mode: 'archiver' });
    const res = await server.call('POST', '/api/contribute/heartbeat', { key: a.key, body: { mode: 'relay' } });
    expect(res.status).toBe(400);
    expect((await server.call('GET', '/api/contribute/status', { key: a.key })).body.seat.mode).toBe('archiver');
  });

  it('sets the mode to one the policy lists, audits the change and refuses others', async () => {
    const a = await holder(5);
    const seat = (await bond(a.key, { token_ids: a.envelopes })).body.seat;
    const res = await server.call('POST', '/api/contribute/mode', { key: a.key, body: { mode: 'archiver' } });
    expect(res.status).toBe(200);
    expect(res.body.seat).toMatchObject({ mode: 'archiver', seat_id: seat.seat_id });
    expect((await server.call('POST', '/api/contribute/mode', { key: a.key, body: { mode: 'gold' } })).status).toBe(400);
    expect((await auditRows()).some((r) => r.subject === seat.seat_id && r.type === 'contribute.mode_set')).toBe(true);
    const none = await mintKey(server);
    expect((await server.call('POST', '/api/contribute/mode', { key: none.key, body: { mode: 'relay' } })).status).toBe(404);
    expect((await server.call('POST', '/api/contribute/heartbeat', { body: {} })).status).toBe(401);
  });
});

describe('release (contribute.release)', () => {
  it('frees the bond of an active or lapsed seat and closes the seat', async () => {
    const a = await holder(5);
    const seat = (await bond(a.key, { token_ids: a.envelopes })).body.seat;
    clock.advance(5000 * TICK_MS);
    const res = await server.call('POST', '/api/contribute/release', { key: a.key, body: {} });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ seat_id: seat.seat_id, released_token_ids: a.envelopes, tick: clock.tick() });
    expect(await token(a.slug, a.envelopes[0]!)).toMatchObject({ bonded: false, issued_to: a.uid });
    expect((await server.call('GET', '/api/contribute/status', { key: a.key })).body.seat).toBeNull();
    expect((await server.call('POST', '/api/contribute/release', { key: a.key, body: {} })).status).toBe(404);
    expect((await bond(a.key, { token_ids: a.envelopes })).status).toBe(200);
    expect((await server.call('POST', '/api/contribute/release', { body: {} })).status).toBe(401);
  });
});
