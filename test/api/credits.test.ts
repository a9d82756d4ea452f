import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFakeClock, TICK_MS } from '../../src/lib/clock.js';
import { verifyChain } from '../../src/domain/chain/hash-chain.js';
import { nodeAuditSeed, type NodeAuditRow } from '../../src/domain/economy/node-audit-repository.js';
import { startServerOn, type DirServer } from '../helpers/durable-server.js';
import { createMachine, mintKey, tempDir, type TestServer } from '../helpers/server.js';
import { useServer } from '../helpers/use-server.js';

/** Mid-day UTC, so a test can advance a few hours without crossing midnight by accident. */
const NOON = Date.parse('2026-04-24T12:00:00.000Z');
const clock = createFakeClock(NOON);

const server = useServer({}, clock);

async function creditsAudit(s: { core: TestServer['core'] }): Promise<NodeAuditRow[]> {
  return s.core.store.logs.read<NodeAuditRow>('node/credits');
}

async function funded(times = 1) {
  const user = await mintKey(server);
  for (let i = 0; i < times; i++) {
    expect((await server.call('POST', '/api/credits/claim', { key: user.key, body: {} })).status).toBe(200);
    if (i < times - 1) clock.advance(86_400_000);
  }
  return user;
}

describe('credits status and claim (credits.getStatus, credits.claim)', () => {
  it('opens one claim per UTC day, adds its worth to the balance and lists past claims', async () => {
    const { key, uid } = await mintKey(server);
    const before = await server.call('GET', '/api/credits/status', { key });
    expect(before.body).toMatchObject({ uid, claim_open: true, claim_amount: 128, credits_balance: 0, past_claims: [] });
    expect(before.body.period_ends_at).toBe(new Date(Date.parse(new Date(clock.now()).toISOString().slice(0, 10)) + 86_400_000).toISOString());
    const claim = await server.call('POST', '/api/credits/claim', { key, body: {} });
    expect(claim.status).toBe(200);
    expect(claim.body).toMatchObject({ uid, credits: 128, credits_balance: 128, tick: clock.tick(), next_claim_at: before.body.period_ends_at });
    const again = await server.call('POST', '/api/credits/claim', { key, body: {} });
    expect(again.status).toBe(409);
    expect(again.body.error.message).toContain('already claimed');
    const after = await server.call('GET', '/api/credits/status', { key });
    expect(after.body).toMatchObject({ claim_open: false, credits_balance: 128 });
    expect(after.body.past_claims).toEqual([{ claimed_at: new Date(clock.now()).toISOString(), tick: clock.tick(), credits: 128 }]);
    clock.advance(86_400_000);
    expect((await server.call('POST', '/api/credits/claim', { key, body: {} })).body.credits_balance).toBe(256);
    const rows = (await creditsAudit(server)).filter((r) => r.subject === uid);
    expect(rows.map((r) => r.type)).toEqual(['credits.claimed', 'credits.claimed']);
  });

  it('refuses every credits operation without a key with 401', async () => {
    expect((await server.call('GET', '/api/credits/status')).status).toBe(401);
    expect((await server.call('POST', '/api/credits/claim', { body: {} })).status).toBe(401);
    expect((await server.call('GET', '/api/credits/conversion')).status).toBe(401);
    expect((await server.call('POST', '/api/credits/convert', { body: { credits: 1, idempotency_key: 'k-00000001' } })).status).toBe(401);
  });
});

describe('conversion (credits.getConversion, credits.convert)', () => {
  it('reads the balance and rate without changing anything', async () => {
    const { key, uid } = await funded();
    const a = await server.call('GET', '/api/credits/conversion', { key });
    const b = await server.call('GET', '/api/credits/conversion', { key });
    expect(a.body).toMatchObject({ uid, credits_balance: 128, rate: 1, wallet_balance: 0 });
    expect(b.body).toEqual(a.body);
  });

  it("moves the caller's credits into the caller's wallet atomically without creating value, audited", async () => {
    const { key, uid } = await funded();
    const slug = `conv-${uid
      .toLowerCase()
      .replace(/[^a-z0-9]/g, '')
      .slice(-12)}`;
    await createMachine(server, key, { slug, isPublic: true });
    await server.call('POST', `/api/chain/${slug}/tally/token/genesis`, { key, body: { name: 'T', symbol: 'T', max_supply: 500, mint_rate_per_tick: 1 } });
    const supplyBefore = (await server.call('GET', `/api/chain/${slug}/tally/supply`)).body;
    const res = await server.call('POST', '/api/credits/convert', { key, body: { credits: 100, idempotency_key: 'convert-0001' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ uid, credits: 100, tokens_credited: 100, rate: 1, credits_balance: 28, wallet_balance: 100, replayed: false });
    expect(res.body.conversion_id).toMatch(/^cv_/);
    const read = (await server.call('GET', '/api/credits/conversion', { key })).body;
    expect(read.credits_balance + read.wallet_balance).toBe(128);
    const supplyAfter = (await server.call('GET', `/api/chain/${slug}/tally/supply`)).body;
    expect({ ...supplyAfter, as_of_tick: 0, tokens_remaining: 0 }).toEqual({ ...supplyBefore, as_of_tick: 0, tokens_remaining: 0 });
    const rows = (await creditsAudit(server)).filter((r) => r.subject === uid && r.type === 'credits.converted');
    expect(rows).toHaveLength(1);
    expect(rows[0]!.detail).toMatchObject({ credits: 100, via: 'convert' });
  });

  it('returns the first result for a repeated idempotency key and refuses the key for another amount', async () => {
    const { key } = await funded();
    const body = { credits: 50, idempotency_key: 'retry-key-01' };
    const first = await server.call('POST', '/api/credits/convert', { key, body });
    const second = await server.call('POST', '/api/credits/convert', { key, body });
    expect(second.status).toBe(200);
    expect(second.body).toEqual({ ...first.body, replayed: true });
    expect((await server.call('GET', '/api/credits/conversion', { key })).body.credits_balance).toBe(78);
    const other = await server.call('POST', '/api/credits/convert', { key, body: { ...body, credits: 10 } });
    expect(other.status).toBe(409);
  });

  it('never lets the balance go negative, even under concurrent conversions', async () => {
    const { key } = await funded(2);
    const overdraw = await server.call('POST', '/api/credits/convert', { key, body: { credits: 257, idempotency_key: 'too-much-01' } });
    expect(overdraw.status).toBe(422);
    expect(overdraw.body.error.message).toContain('balance is 256');
    const results = await Promise.all(
      [1, 2, 3, 4, 5].map((i) => server.call('POST', '/api/credits/convert', { key, body: { credits: 100, idempotency_key: `parallel-${i}-key` } })),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(2);
    expect(results.filter((r) => r.status === 422)).toHaveLength(3);
    expect((await server.call('GET', '/api/credits/conversion', { key })).body).toMatchObject({ credits_balance: 56, wallet_balance: 200 });
  });

  it('validates the amount and the idempotency key with 400', async () => {
    const { key } = await mintKey(server);
    expect((await server.call('POST', '/api/credits/convert', { key, body: { credits: 0, idempotency_key: 'zero-amount' } })).status).toBe(400);
    const noKey = await server.call('POST', '/api/credits/convert', { key, body: { credits: 5 } });
    expect(noKey.status).toBe(400);
    expect(noKey.body.error.message).toContain('idempotency_key');
  });
});

describe('peer calls (credits.readPeerConversion, credits.peerConvert)', () => {
  const peer = generateKeyPairSync('ed25519');
  const intruder = generateKeyPairSync('ed25519');
  const raw = (k: KeyObject) => (k.export({ format: 'jwk' }) as { x: string }).x;
  const signWith = (k: KeyObject, message: string, encoding: 'hex' | 'base64' | 'base64url' = 'base64url') =>
    sign(null, Buffer.from(message), k).toString(encoding);

  let dir: { dir: string; cleanup: () => Promise<void> };
  let authority: DirServer;
  let user: { key: string; uid: string };
  let other: { key: string; uid: string };
  const fake = createFakeClock(NOON);

  beforeAll(async () => {
    dir = await tempDir();
    // First start: create the users and their credits; then restart with their keys published.
    const first = await startServerOn(dir.dir, {}, fake);
    user = await mintKey(first);
    other = await mintKey(first);
    await first.call('POST', '/api/credits/claim', { key: user.key, body: {} });
    await first.stop(100);
    const keys = JSON.stringify([
      { uid: user.uid, public_key: raw(peer.publicKey), key_id: 'user-key-1' },
      { uid: other.uid, public_key: raw(intruder.publicKey), key_id: 'other-key-1' },
    ]);
    authority = await startServerOn(dir.dir, { CORE_PEER_KEYS: keys, CORE_CREDITS_AUTHORITY: '1' }, fake);
  });
  afterAll(async () => {
    await authority.stop(100);
    await dir.cleanup();
  });

  const read = (tick: number, opts: { key?: KeyObject; keyId?: string; encoding?: 'hex' | 'base64' } = {}) =>
    authority.call('POST', '/api/credits/peer/conversion', {
      body: {
        uid: user.uid,
        tick,
        signature: signWith(opts.key ?? peer.privateKey, `credits-conversion|${user.uid}|${tick}`, opts.encoding),
        public_key_id: opts.keyId ?? 'user-key-1',
      },
    });

  it("returns the uid's balance for a signature by the uid's published key, in hex or base64", async () => {
    const res = await read(fake.tick());
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ uid: user.uid, credits_balance: 128, rate: 1, tick: fake.tick() });
    expect((await read(fake.tick() - 1, { encoding: 'hex' })).status).toBe(200);
    expect((await read(fake.tick() - 2, { encoding: 'base64' })).status).toBe(200);
  });

  it('refuses a replayed signed read with 409', async () => {
    const tick = fake.tick() - 3;
    expect((await read(tick)).status).toBe(200);
    const replay = await read(tick);
    expect(replay.status).toBe(409);
    expect(replay.body.error.message).toContain('already used');
  });

  it('refuses a stale or far-future tick with 422, whatever the signature', async () => {
    const stale = await read(fake.tick() - 65);
    expect(stale.status).toBe(422);
    expect(stale.body.error.message).toContain('Stale tick');
    expect((await read(fake.tick() + 65)).status).toBe(422);
    // A call signed now goes stale once the window passes: a captured request cannot be used later.
    const tick = fake.tick();
    fake.advance(65 * TICK_MS);
    expect((await read(tick)).status).toBe(422);
  });

  it('refuses a signature by another key, a key published for another uid and an unknown key id with 403', async () => {
    expect((await read(fake.tick(), { key: intruder.privateKey })).status).toBe(403);
    const borrowed = await read(fake.tick() - 4, { key: intruder.privateKey, keyId: 'other-key-1' });
    expect(borrowed.status).toBe(403);
    expect(borrowed.body.error.message).toContain('another uid');
    expect((await read(fake.tick() - 5, { keyId: 'nobody' })).status).toBe(403);
  });

  const convert = (credits: number, tick: number, node: DirServer = authority, keyId?: string) =>
    node.call('POST', '/api/credits/peer/convert', {
      body: {
        uid: user.uid,
        credits,
        tick,
        signature: signWith(peer.privateKey, `credits-convert|${user.uid}|${credits}|${tick}`),
        ...(keyId ? { public_key_id: keyId } : {}),
      },
    });

  it("converts on the authority node with the uid's current key, refusing replays, stale ticks and overdrafts", async () => {
    const tick = fake.tick();
    const res = await convert(20, tick);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ uid: user.uid, credits: 20, tokens_credited: 20, credits_balance: 108, wallet_balance: 20 });
    expect((await convert(20, tick)).status).toBe(409);
    expect((await convert(20, tick - 100)).status).toBe(422);
    expect((await convert(5000, tick - 1, authority, 'user-key-1')).status).toBe(422);
    expect((await authority.call('GET', '/api/credits/conversion', { key: user.key })).body).toMatchObject({ credits_balance: 108, wallet_balance: 20 });
    const rows = (await authority.core.store.logs.read<NodeAuditRow>('node/credits')).filter((r) => r.type === 'credits.converted');
    expect(rows.at(-1)!.detail).toMatchObject({ via: 'peer:user-key-1', credits: 20 });
  });

  it('keeps the credits audit log a valid hash chain', async () => {
    const rows = await authority.core.store.logs.read<NodeAuditRow>('node/credits');
    expect(rows.length).toBeGreaterThan(3);
    expect(verifyChain(rows, nodeAuditSeed('credits')).valid).toBe(true);
  });

  it('refuses peer/convert on a node that is not the authority', async () => {
    const elsewhere = await tempDir();
    const node = await startServerOn(elsewhere.dir, { CORE_PEER_KEYS: JSON.stringify([{ uid: user.uid, public_key: raw(peer.publicKey) }]) }, fake);
    try {
      const res = await convert(1, fake.tick(), node);
      expect(res.status).toBe(403);
      expect(res.body.error.message).toContain('not the credits authority');
    } finally {
      await node.stop(100);
      await elsewhere.cleanup();
    }
  });
});
