import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createAnchorRepository } from '../../src/domain/chain/anchor-repository.js';
import { signAnchor, ANCHOR_ID_SECRET, anchorIdHash, legacyAnchorIdHash, newAnchorKey } from '../../src/domain/chain/anchor.js';
import { storedSecret } from '../../src/domain/identity/stored-secret.js';
import { createFakeClock } from '../../src/lib/clock.js';
import { createMachine, mintKey, type TestServer } from '../helpers/server.js';
import { serverForTest } from '../helpers/use-server.js';
import { storageOf } from '../helpers/repositories.js';

async function setup() {
  const clock = createFakeClock();
  const server = await serverForTest({}, clock);
  const owner = await mintKey(server);
  const child = await server.call('POST', '/api/chain/state-machines', { key: owner.key, body: { slug: 'secret-child' } });
  const mother = await server.call('POST', '/api/chain/state-machines', { key: owner.key, body: { slug: 'mother', is_public: true } });
  expect(child.status).toBe(200);
  expect(mother.status).toBe(200);
  const genesis = child.body.machine.genesis_hash as string;
  // The pseudonym is keyed by a node secret: only the node (holding it in its store) can compute it.
  const idHash = anchorIdHash(await storedSecret(storageOf(server.core.store).nodeKeyRecords, ANCHOR_ID_SECRET, clock.now), 'secret-child', genesis);
  const configure = (body: Record<string, unknown> = {}) =>
    server.call('PUT', '/api/chain/state-machines/secret-child/anchor-config', {
      key: owner.key,
      body: { enabled: true, mother_slug: 'mother', every_ticks: 10, ...body },
    });
  return { server, clock, owner, genesis, idHash, configure };
}

async function rowsOf(server: TestServer, slug: string, key: string) {
  const res = await server.call('GET', `/api/chain/${slug}/activity?limit=100`, { key });
  return res.body.rows as Array<{ type: string; seq: number; state_hash: string; tick: number }>;
}

describe('anchor configuration', () => {
  it('anchors the head into the mother as soon as it is enabled, writing a row on both chains', async () => {
    const t = await setup();
    const res = await t.configure();
    expect(res.status).toBe(200);
    expect(res.body.config).toMatchObject({ slug: 'secret-child', enabled: true, mother_slug: 'mother', every_ticks: 10, last_error: null });
    expect(res.body.config.key_id).toMatch(/^ak_/);
    expect(res.body.config.public_key).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const childRows = await rowsOf(t.server, 'secret-child', t.owner.key);
    expect(childRows.map((r) => r.type).slice(0, 2)).toEqual(['anchor.sent', 'anchor.config.set']);
    expect(res.body.config.last_anchor_seq).toBe(childRows[1]!.seq);
    const motherRows = await rowsOf(t.server, 'mother', t.owner.key);
    expect(motherRows[0]!.type).toBe('anchor.recorded');
    // Each anchor row keeps its payload beside the digest: audit/decrypt shows it and checks it.
    for (const [slug, rows] of [
      ['secret-child', childRows.slice(0, 2)],
      ['mother', motherRows.slice(0, 1)],
    ] as const) {
      const opened = await t.server.call('POST', `/api/chain/${slug}/audit/decrypt`, { key: t.owner.key, body: { seqs: rows.map((r) => r.seq) } });
      for (const row of opened.body.rows) expect(row, `${slug} ${row.row.type}`).toMatchObject({ payload: expect.any(Object), digest_matches: true });
    }
  });

  it('needs a key and the admin role, hides a private child, and refuses a private mother', async () => {
    const t = await setup();
    const stranger = await mintKey(t.server);
    expect((await t.server.call('GET', '/api/chain/state-machines/secret-child/anchor-config')).status).toBe(401);
    expect((await t.server.call('GET', '/api/chain/state-machines/secret-child/anchor-config', { key: stranger.key })).status).toBe(404);
    await createMachine(t.server, t.owner.key, { slug: 'private-mother' });
    const privateMother = await t.configure({ mother_slug: 'private-mother' });
    expect(privateMother.status).toBe(422);
    expect(privateMother.body.error.message).toMatch(/private/);
    const self = await t.configure({ mother_slug: 'secret-child' });
    expect(self.status).toBe(400);
    const got = await t.server.call('GET', '/api/chain/state-machines/secret-child/anchor-config', { key: t.owner.key });
    expect(got.body.config).toMatchObject({ enabled: false, mother_slug: null, last_anchor_tick: null });
  });

  it('anchors again on its cadence only when the child wrote something new', async () => {
    const t = await setup();
    await t.configure();
    const anchors = t.server.core.services.anchors;
    t.clock.advance(11 * 777);
    expect(await anchors.runDue()).toBe(0);
    await t.server.call('POST', '/api/chain/secret-child/event', { key: t.owner.key, body: { type: 'x' } });
    expect(await anchors.runDue()).toBe(1);
    expect(await anchors.runDue()).toBe(0);
    const list = await t.server.call('GET', '/api/chain/mother/anchors');
    expect(list.body.anchors).toHaveLength(2);
  });
});

describe('anchor reads', () => {
  it('lists anchors and anchored machines by id hash, never by slug', async () => {
    const t = await setup();
    await t.configure();
    const anchors = await t.server.call('GET', '/api/chain/mother/anchors');
    expect(anchors.status).toBe(200);
    expect(anchors.body.anchors[0]).toMatchObject({ id_hash: t.idHash, mother_seq: expect.any(Number) });
    const filtered = await t.server.call('GET', `/api/chain/mother/anchors?id_hash=${t.idHash}&limit=1`);
    expect(filtered.body.anchors).toHaveLength(1);
    const none = await t.server.call('GET', `/api/chain/mother/anchors?id_hash=${'0'.repeat(64)}`);
    expect(none.body.anchors).toEqual([]);
    const anchored = await t.server.call('GET', '/api/chain/mother/anchored');
    expect(anchored.body.machines).toEqual([expect.objectContaining({ id_hash: t.idHash, anchor_count: 1 })]);
    expect(JSON.stringify([anchors.body, anchored.body])).not.toContain('secret-child');
    expect((await t.server.call('GET', '/api/chain/secret-child/anchors')).status).toBe(404);
  });

  it('recomputes the id hash in verify-anchor and reports match, mismatch and whether the head still holds', async () => {
    const t = await setup();
    await t.configure();
    const anon = await t.server.call('GET', `/api/chain/verify-anchor?slug=secret-child&genesis_hash=${t.genesis}`);
    expect(anon.status).toBe(404);
    const owner = await t.server.call('GET', `/api/chain/verify-anchor?slug=secret-child&genesis_hash=${t.genesis}`, { key: t.owner.key });
    expect(owner.body).toMatchObject({ match: true, id_hash: t.idHash, recomputed: true, anchored: true });
    expect(owner.body.anchors[0]).toMatchObject({ mother_slug: 'mother' });
    expect(owner.body.anchors[0].head_matches).toBe(true);
    const mismatch = await t.server.call('GET', `/api/chain/verify-anchor?slug=secret-child&genesis_hash=${t.genesis}&id_hash=${'a'.repeat(64)}`, {
      key: t.owner.key,
    });
    expect(mismatch.status).toBe(200);
    expect(mismatch.body).toMatchObject({ valid: false, reason: 'id_hash is not the hash of slug and genesis_hash', match: false, id_hash: t.idHash });
    const nowhere = await t.server.call('GET', `/api/chain/verify-anchor?id_hash=${'b'.repeat(64)}`);
    expect(nowhere.body).toMatchObject({ valid: false, anchored: false, reason: 'no anchor of this machine is recorded in a machine you can read' });
    const byId = await t.server.call('GET', `/api/chain/verify-anchor?id_hash=${t.idHash}`);
    expect(byId.body).toMatchObject({ recomputed: false, anchored: true });
    const missing = await t.server.call('GET', '/api/chain/verify-anchor?slug=secret-child');
    expect(missing.status).toBe(400);
  });
});

describe('POST anchor', () => {
  async function signedClaim(t: Awaited<ReturnType<typeof setup>>, keyId: string) {
    const key = (await createAnchorRepository(t.server.core.store).key(keyId))!;
    await t.server.call('POST', '/api/chain/secret-child/event', { key: t.owner.key, body: { type: 'x' } });
    const head = (await rowsOf(t.server, 'secret-child', t.owner.key))[0]!;
    const claim = { id_hash: t.idHash, head_seq: head.seq, head_tick: head.tick, head_hash: head.state_hash };
    return { ...claim, key_id: keyId, signature: signAnchor(key, { ...claim, mother_slug: 'mother' }) };
  }

  it('accepts a head signed by the current anchor key and refuses bad signatures, other keys and forged heads', async () => {
    const t = await setup();
    const config = (await t.configure({ enabled: false })).body.config;
    const body = await signedClaim(t, config.key_id);
    const ok = await t.server.call('POST', '/api/chain/mother/anchor', { body });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ ok: true, anchor_id: expect.any(String), seq: expect.any(Number) });

    const replay = await t.server.call('POST', '/api/chain/mother/anchor', { body });
    expect(replay.status).toBe(409);
    const flipped = body.signature.startsWith('A') ? `B${body.signature.slice(1)}` : `A${body.signature.slice(1)}`;
    const badSig = await t.server.call('POST', '/api/chain/mother/anchor', { body: { ...body, signature: flipped } });
    expect(badSig.status).toBe(403);
    expect(badSig.body.error.message).toMatch(/does not verify/);
    const tampered = await t.server.call('POST', '/api/chain/mother/anchor', { body: { ...body, head_tick: body.head_tick + 1 } });
    expect(tampered.status).toBe(403);
    const unknown = await t.server.call('POST', '/api/chain/mother/anchor', { body: { ...body, key_id: 'ak_nope' } });
    expect(unknown.status).toBe(403);
    const hidden = await t.server.call('POST', '/api/chain/secret-child/anchor', { body });
    expect(hidden.status).toBe(404);

    const rotated = await t.server.call('POST', '/api/chain/state-machines/secret-child/anchor-key/rotate', { key: t.owner.key });
    expect(rotated.body).toMatchObject({ slug: 'secret-child', previous_key_id: config.key_id });
    expect(rotated.body.key_id).not.toBe(config.key_id);
    const old = await t.server.call('POST', '/api/chain/mother/anchor', { body });
    expect(old.status).toBe(403);
    const fresh = await signedClaim(t, rotated.body.key_id);
    expect((await t.server.call('POST', '/api/chain/mother/anchor', { body: fresh })).status).toBe(200);
    const types = (await rowsOf(t.server, 'secret-child', t.owner.key)).map((r) => r.type);
    expect(types).toContain('anchor.key.rotated');
  });

  it('refuses a signed head that is not in the child chain', async () => {
    const t = await setup();
    const config = (await t.configure({ enabled: false })).body.config;
    const key = (await createAnchorRepository(t.server.core.store).key(config.key_id))!;
    const claim = { id_hash: t.idHash, head_seq: 0, head_tick: 1, head_hash: 'b'.repeat(64) };
    const res = await t.server.call('POST', '/api/chain/mother/anchor', {
      body: { ...claim, key_id: key.key_id, signature: signAnchor(key, { ...claim, mother_slug: 'mother' }) },
    });
    expect(res.status).toBe(422);
  });
});

describe('keyed pseudonyms', () => {
  it('publishes an id_hash that is not sha256 of the slug and genesis hash, and recomputes it only for readers of the machine', async () => {
    const t = await setup();
    const config = (await t.configure()).body.config;
    expect(config.id_hash).toBe(t.idHash);
    const anchored = await t.server.call('GET', '/api/chain/mother/anchored');
    const published = anchored.body.machines[0].id_hash as string;
    expect(published).toBe(t.idHash);
    // What an attacker computes from a guessed slug and genesis tick no longer names the machine.
    expect(published).not.toBe(createHash('sha256').update(`secret-child|${t.genesis}`).digest('hex'));
    const stranger = await mintKey(t.server);
    for (const key of [undefined, stranger.key]) {
      const guess = await t.server.call('GET', `/api/chain/verify-anchor?slug=secret-child&genesis_hash=${t.genesis}`, key ? { key } : {});
      expect(guess.status).toBe(404);
      expect(JSON.stringify(guess.body)).not.toContain(published);
    }
    const viaHttp = await t.server.call('POST', '/api/http', {
      key: stranger.key,
      body: { method: 'GET', path: `/api/chain/verify-anchor?slug=secret-child&genesis_hash=${t.genesis}` },
    });
    expect(viaHttp.status).toBe(404);
    const rpc = await t.server.call('POST', '/api/mcp', {
      key: stranger.key,
      headers: { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
      body: {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'core_anchors', arguments: { action: 'verify', slug: 'secret-child', genesis_hash: t.genesis } },
      },
    });
    expect(rpc.body.result.isError).toBe(true);
    expect(rpc.body.result.structuredContent.error.code).toBe('NOT_FOUND');
    // Whoever was given the id_hash still verifies by it.
    const byId = await t.server.call('GET', `/api/chain/verify-anchor?id_hash=${published}`);
    expect(byId.body).toMatchObject({ anchored: true, recomputed: false });
  });

  it('keeps anchors made under the old unkeyed pseudonym verifiable, and replaces the old key on the next anchor', async () => {
    const t = await setup();
    const store = t.server.core.store;
    // A child anchored before the change: its key and its anchors carry sha256("<slug>|<genesis>").
    const legacy = legacyAnchorIdHash('secret-child', t.genesis);
    const oldKey = newAnchorKey('secret-child', legacy, t.clock.tick());
    await createAnchorRepository(store).insertKey(oldKey);
    await createAnchorRepository(store).updateConfig('secret-child', () => ({
      slug: 'secret-child',
      enabled: false,
      mother_slug: null,
      every_ticks: 10,
      key_id: oldKey.key_id,
      last_anchor_tick: null,
      last_anchor_seq: null,
      last_sent_seq: null,
      last_error: null,
    }));
    const head = (await rowsOf(t.server, 'secret-child', t.owner.key))[0]!;
    const claim = { id_hash: legacy, head_seq: head.seq, head_tick: head.tick, head_hash: head.state_hash };
    const old = await t.server.call('POST', '/api/chain/mother/anchor', {
      body: { ...claim, key_id: oldKey.key_id, signature: signAnchor(oldKey, { ...claim, mother_slug: 'mother' }) },
    });
    expect(old.status).toBe(200);
    expect(await createAnchorRepository(store).anchored('mother', legacy)).toBeDefined();

    // Enabling anchoring now retires the old key and anchors under the keyed pseudonym.
    const config = (await t.configure()).body.config;
    expect(config.key_id).not.toBe(oldKey.key_id);
    expect(config.id_hash).toBe(t.idHash);
    expect((await createAnchorRepository(store).key(oldKey.key_id))!.retired_tick).not.toBeNull();
    expect((await rowsOf(t.server, 'secret-child', t.owner.key)).map((r) => r.type)).toContain('anchor.key.rotated');

    const owner = await t.server.call('GET', `/api/chain/verify-anchor?slug=secret-child&genesis_hash=${t.genesis}&id_hash=${legacy}`, { key: t.owner.key });
    expect(owner.body).toMatchObject({ match: true, id_hash: t.idHash, anchored: true });
    const ids = (owner.body.anchors as Array<{ id_hash: string; head_matches: boolean }>).map((a) => [a.id_hash, a.head_matches]);
    expect(ids).toEqual(
      expect.arrayContaining([
        [legacy, true],
        [t.idHash, true],
      ]),
    );
  });
});
