import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createFakeClock, TICK_MS } from '../../src/lib/clock.js';
import { startServerOn } from '../helpers/durable-server.js';
import { createMachine, mintKey, spinUp, tempDir } from '../helpers/server.js';
import { useServer } from '../helpers/use-server.js';

const clock = createFakeClock();

const server = useServer({}, clock);

const machine = (slug: string, isPublic = true) => spinUp(server, slug, isPublic);

const genesis = (slug: string, key: string | undefined, body: Record<string, unknown> = {}) =>
  server.call('POST', `/api/chain/${slug}/tally/token/genesis`, {
    ...(key ? { key } : {}),
    body: { name: 'Lab token', symbol: 'LAB', max_supply: 1000, mint_rate_per_tick: 5, ...body },
  });

const compute = (key?: string) => server.call('POST', '/api/compute', { body: { operators: ['NM19'], inputs: { m: 2, a: 3 } }, ...(key ? { key } : {}) });

async function auditTypes(slug: string, key: string): Promise<string[]> {
  const res = await server.call('GET', `/api/chain/${slug}/activity?limit=100`, { key });
  return res.body.rows.map((r: { type: string }) => r.type);
}

describe('token genesis (tally.createGenesis)', () => {
  it('creates a locked token once and refuses a second genesis with 409, auditing the first', async () => {
    const { key } = await machine('tally-genesis');
    const first = await genesis('tally-genesis', key);
    expect(first.status).toBe(200);
    expect(first.body.token).toMatchObject({
      machine_slug: 'tally-genesis',
      name: 'Lab token',
      symbol: 'LAB',
      max_supply: 1000,
      locked: true,
      has_avatar: false,
      genesis_tick: clock.tick(),
    });
    expect(first.body.token.token_hash).toMatch(/^[0-9a-f]{64}$/);
    const second = await genesis('tally-genesis', key, { name: 'Other', max_supply: 5 });
    expect(second.status).toBe(409);
    expect(second.body.error.message).toContain('one-shot');
    const info = await server.call('GET', '/api/chain/tally-genesis/tally/token');
    expect(info.body.token).toMatchObject({ name: 'Lab token', max_supply: 1000 });
    expect(await auditTypes('tally-genesis', key)).toContain('tally.genesis');
  });

  it('refuses genesis without a key (401), from a non-owner (403) and on a private machine of someone else (404)', async () => {
    const { key } = await machine('tally-genesis-deny');
    const stranger = await mintKey(server);
    const admin = await mintKey(server);
    await server.call('POST', '/api/chain/tally-genesis-deny/admins', { key, body: { uid: admin.uid, role: 'admin' } });
    expect((await genesis('tally-genesis-deny', undefined)).status).toBe(401);
    expect((await genesis('tally-genesis-deny', admin.key)).status).toBe(403);
    await machine('tally-private', false);
    expect((await genesis('tally-private', stranger.key)).status).toBe(404);
    expect((await server.call('GET', '/api/chain/tally-private/tally/supply')).status).toBe(404);
  });

  it('validates the symbol and the ceiling with 400 and a message naming the field', async () => {
    const { key } = await machine('tally-genesis-bad');
    const res = await genesis('tally-genesis-bad', key, { symbol: 'lab' });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toContain('symbol');
    expect((await genesis('tally-genesis-bad', key, { max_supply: 0 })).status).toBe(400);
  });

  it('answers 404 for the token reads of a machine without genesis', async () => {
    await machine('tally-none');
    for (const p of ['token', 'supply', 'mint-rate', 'token/avatar']) {
      const res = await server.call('GET', `/api/chain/tally-none/tally/${p}`);
      expect(res.status).toBe(404);
      expect(res.body.error.message).toContain('genesis');
    }
  });
});

describe('supply and mint rate (tally.getSupply, tally.getMintRate, tally.setMintRate)', () => {
  it('fills tokens_remaining at the mint rate per tick and never beyond max_supply', async () => {
    const { key } = await machine('tally-fill');
    await genesis('tally-fill', key, { max_supply: 100, mint_rate_per_tick: 7 });
    const supply = async () => (await server.call('GET', '/api/chain/tally-fill/tally/supply')).body;
    expect(await supply()).toMatchObject({ max_supply: 100, tokens_minted: 0, tokens_burned: 0, tokens_remaining: 0, mint_rate_per_tick: 7 });
    clock.advance(3 * TICK_MS);
    expect((await supply()).tokens_remaining).toBe(21);
    clock.advance(1000 * TICK_MS);
    expect((await supply()).tokens_remaining).toBe(100);
  });

  it('lets the owner change the rate from now on, keeping what accrued at the old rate, and audits it', async () => {
    const { key, machineKey } = await machine('tally-rate');
    await genesis('tally-rate', key, { max_supply: 10_000, mint_rate_per_tick: 2 });
    expect((await server.call('GET', '/api/chain/tally-rate/tally/mint-rate')).body).toMatchObject({ mint_rate_per_tick: 2, updated_tick: null });
    clock.advance(10 * TICK_MS);
    const set = await server.call('POST', '/api/chain/tally-rate/tally/mint-rate', { key: machineKey, body: { mint_rate_per_tick: 10 } });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ machine_slug: 'tally-rate', mint_rate_per_tick: 10, updated_tick: clock.tick() });
    clock.advance(5 * TICK_MS);
    expect((await server.call('GET', '/api/chain/tally-rate/tally/supply')).body.tokens_remaining).toBe(20 + 50);
    expect(await auditTypes('tally-rate', key)).toContain('tally.mint_rate_set');
  });

  it('refuses a rate change from an operator (403) and without a key (401)', async () => {
    const { key } = await machine('tally-rate-deny');
    await genesis('tally-rate-deny', key);
    const op = await mintKey(server);
    await server.call('POST', '/api/chain/tally-rate-deny/admins', { key, body: { uid: op.uid, role: 'operator' } });
    const body = { mint_rate_per_tick: 1 };
    expect((await server.call('POST', '/api/chain/tally-rate-deny/tally/mint-rate', { key: op.key, body })).status).toBe(403);
    expect((await server.call('POST', '/api/chain/tally-rate-deny/tally/mint-rate', { body })).status).toBe(401);
  });

  it('keeps the lifetime ceiling across a restart, computed from ticks rather than a timer', async () => {
    const { dir, cleanup } = await tempDir();
    const fake = createFakeClock();
    const compute = { operators: ['NM19'], inputs: { m: 2, a: 3 } };
    try {
      let node = await startServerOn(dir, {}, fake);
      const { key } = await mintKey(node);
      const machineKey = (await createMachine(node, key, { slug: 'ceiling', isPublic: true })).machineKey;
      await node.call('POST', '/api/chain/ceiling/tally/token/genesis', { key, body: { name: 'C', symbol: 'C', max_supply: 12, mint_rate_per_tick: 1 } });
      fake.advance(5 * TICK_MS);
      expect((await node.call('POST', '/api/compute', { key: machineKey, body: compute })).body.envelope.value).toBe(2);
      await node.stop(100);

      // Down for a long time: nothing ran, yet the allowance is what the ticks give, capped at the ceiling.
      fake.advance(100_000 * TICK_MS);
      node = await startServerOn(dir, {}, fake);
      expect((await node.call('GET', '/api/chain/ceiling/tally/supply')).body).toMatchObject({ max_supply: 12, tokens_minted: 2, tokens_remaining: 10 });
      for (let i = 0; i < 5; i++) expect((await node.call('POST', '/api/compute', { key: machineKey, body: compute })).body.envelope).toBeDefined();
      const refused = await node.call('POST', '/api/compute', { key: machineKey, body: compute });
      expect(refused.status).toBe(200);
      expect(refused.body.envelope).toBeUndefined();
      expect((await node.call('GET', '/api/chain/ceiling/tally/supply')).body).toMatchObject({ tokens_minted: 12, tokens_remaining: 0 });
      await node.stop(100);
    } finally {
      await cleanup();
    }
  });
});

describe('envelopes (tally.listTokens, tally.getToken, tally.verifyToken)', () => {
  it('mints an envelope for a compute made with a machine key and lists it on the machine, newest first', async () => {
    const { key, machineKey, uid } = await machine('tally-env');
    await genesis('tally-env', key, { mint_rate_per_tick: 100 });
    clock.advance(2 * TICK_MS);
    const res = await compute(machineKey);
    expect(res.status).toBe(200);
    expect(res.body.envelope).toMatchObject({ machine_slug: 'tally-env', value: 2 });
    const firstId = res.body.envelope.token_id as string;
    expect(firstId).toMatch(/^tt_[a-z2-7]{16}_0$/);
    expect(firstId).not.toContain('tally-env');
    const second = await compute(key); // a user key draws on the caller's oldest machine with a token
    const list = await server.call('GET', '/api/chain/tally-env/tally/tokens?limit=1');
    expect(list.body.tokens).toHaveLength(1);
    expect(list.body.tokens[0]).toMatchObject({
      token_id: second.body.envelope.token_id,
      source: 'compute',
      issued_to: uid,
      bonded: false,
      locked_for_vote: false,
    });
    const next = await server.call('GET', `/api/chain/tally-env/tally/tokens?limit=1&cursor=${list.body.next_cursor}`);
    expect(next.body.tokens[0].token_id).toBe(firstId);
    expect(next.body.next_cursor).toBeNull();
    const one = await server.call('GET', `/api/chain/tally-env/tally/token/${firstId}`);
    expect(one.body.token).toMatchObject({ token_id: firstId, machine_slug: 'tally-env', value: 2, result_digest: res.body.receipt.output_sha256 });
    expect((await server.call('GET', `/api/chain/tally-env/tally/token/${firstId.replace(/_0$/, '_9')}`)).status).toBe(404);
    expect((await server.call('GET', `/api/chain/tally-fill/tally/token/${firstId}`)).status).toBe(404);
    expect(await auditTypes('tally-env', key)).toContain('tally.minted');
  });

  it('mints nothing for an anonymous caller or a user without a machine token, and still answers the compute', async () => {
    const anon = await compute();
    expect(anon.status).toBe(200);
    expect(anon.body.envelope).toBeUndefined();
    const { key } = await machine('tally-no-token');
    expect((await compute(key)).body.envelope).toBeUndefined();
  });

  it("verifies a token's hash and node signature, and reports an altered or forged row as invalid", async () => {
    const { key, machineKey } = await machine('tally-verify');
    await genesis('tally-verify', key, { mint_rate_per_tick: 100 });
    clock.advance(TICK_MS);
    const id = (await compute(machineKey)).body.envelope.token_id;
    const byId = await server.call('POST', '/api/chain/tally-verify/tally/verify', { body: { token_id: id } });
    expect(byId.body).toMatchObject({ valid: true, hash_valid: true, signature_valid: true, reason: null, token_id: id });
    const token = (await server.call('GET', `/api/chain/tally-verify/tally/token/${id}`)).body.token;
    expect((await server.call('POST', '/api/chain/tally-verify/tally/verify', { body: { token } })).body.valid).toBe(true);
    const altered = await server.call('POST', '/api/chain/tally-verify/tally/verify', { body: { token: { ...token, value: 999 } } });
    expect(altered.body).toMatchObject({ valid: false, hash_valid: false });
    expect(altered.body.reason).toContain('token_hash');
    const forged = await server.call('POST', '/api/chain/tally-verify/tally/verify', { body: { token: { ...token, signature: 'A'.repeat(86) } } });
    expect(forged.body).toMatchObject({ valid: false, hash_valid: true, signature_valid: false });
    const neither = await server.call('POST', '/api/chain/tally-verify/tally/verify', { body: {} });
    expect(neither.status).toBe(400);
  });

  it('mints for an explicit machine (the contract-fire path) to whoever the call names, and says why it did not', async () => {
    const { key, uid } = await machine('tally-fire');
    const { tally } = server.core.services;
    const caller = { uid: null, credential: 'none' as const };
    const digest = 'a'.repeat(64);
    expect(await tally.mintEnvelope({ slug: 'tally-fire', caller, kind: 'contract_fire', resultDigest: digest, value: 2 })).toMatchObject({
      minted: false,
      reason: 'no_token',
    });
    await genesis('tally-fire', key, { mint_rate_per_tick: 10 });
    clock.advance(TICK_MS);
    const minted = await tally.mintEnvelope({ slug: 'tally-fire', caller, issuedTo: uid, kind: 'contract_fire', resultDigest: digest, value: 4 });
    expect(minted).toMatchObject({ minted: true, tokens_remaining: 6, envelope: { source: 'contract_fire', issued_to: uid, value: 4, result_digest: digest } });
    expect(await tally.mintEnvelope({ slug: 'tally-fire', caller, kind: 'contract_fire', resultDigest: digest, value: 0 })).toMatchObject({
      minted: false,
      reason: 'no_value',
    });
    expect(await tally.mintEnvelope({ slug: 'no-such-machine', caller, kind: 'solve', resultDigest: digest, value: 1 })).toMatchObject({
      minted: false,
      reason: 'no_machine',
    });
    await server.call('POST', '/api/chain/tally-fire/status', { key, body: { status: 'paused' } });
    expect(await tally.mintEnvelope({ slug: 'tally-fire', caller, kind: 'contract_fire', resultDigest: digest, value: 1 })).toMatchObject({
      minted: false,
      reason: 'machine_inactive',
    });
  });

  it('mints nothing once the supply is exhausted', async () => {
    const { key, machineKey } = await machine('tally-dry');
    await genesis('tally-dry', key, { max_supply: 3, mint_rate_per_tick: 100 });
    clock.advance(TICK_MS);
    expect((await compute(machineKey)).body.envelope.value).toBe(2);
    expect((await compute(machineKey)).body.envelope).toBeUndefined();
  });
});

describe('token avatar (tally.uploadAvatar, tally.getAvatar)', () => {
  const marker = 'AVATAR-PLAINTEXT-MARKER-7f3a';
  const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from(marker.repeat(4))]);

  async function filesContaining(dir: string, needle: string): Promise<string[]> {
    const hits: string[] = [];
    for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
      if (!entry.isFile()) continue;
      const p = path.join(entry.parentPath, entry.name);
      if ((await readFile(p, 'latin1')).includes(needle)) hits.push(p);
    }
    return hits;
  }

  it('stores the avatar encrypted and serves it decrypted', async () => {
    const { key } = await machine('tally-avatar');
    await genesis('tally-avatar', key);
    const up = await server.call('POST', '/api/chain/tally-avatar/tally/token/avatar', {
      key,
      body: { content_type: 'image/png', data: png.toString('base64') },
    });
    expect(up.status).toBe(200);
    expect(up.body).toMatchObject({ encrypted: true, size_bytes: png.length, content_type: 'image/png' });
    const got = await server.call('GET', '/api/chain/tally-avatar/tally/token/avatar');
    expect(got.status).toBe(200);
    expect(Buffer.from(got.body.data, 'base64').equals(png)).toBe(true);
    expect((await server.call('GET', '/api/chain/tally-avatar/tally/token')).body.token.has_avatar).toBe(true);
    expect(await filesContaining(server.dataDir, marker)).toEqual([]);
    expect(await filesContaining(server.dataDir, png.toString('base64'))).toEqual([]);
  });

  it('refuses bytes that are not the declared image type (422), non-owners (403) and anonymous uploads (401)', async () => {
    const { key } = await machine('tally-avatar-deny');
    await genesis('tally-avatar-deny', key);
    const body = { content_type: 'image/jpeg', data: png.toString('base64') };
    expect((await server.call('POST', '/api/chain/tally-avatar-deny/tally/token/avatar', { key, body })).status).toBe(422);
    const other = await mintKey(server);
    expect(
      (await server.call('POST', '/api/chain/tally-avatar-deny/tally/token/avatar', { key: other.key, body: { ...body, content_type: 'image/png' } })).status,
    ).toBe(403);
    expect((await server.call('POST', '/api/chain/tally-avatar-deny/tally/token/avatar', { body })).status).toBe(401);
  });
});
