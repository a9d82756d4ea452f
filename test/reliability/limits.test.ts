import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { createRateLimiter, parseRateSpec } from '../../src/pipeline/rate-limit.js';
import { createRateTiers, parseRateTiers } from '../../src/domain/identity/rate-tiers.js';
import { ANONYMOUS, type Caller } from '../../src/domain/identity/caller.js';
import { createFakeClock } from '../../src/lib/clock.js';
import { createMachine, mintKey } from '../helpers/server.js';
import { serverForTest } from '../helpers/use-server.js';

const serve = (env: Record<string, string>, clock?: ReturnType<typeof createFakeClock>) => serverForTest(env, clock);

describe('per-key token bucket', () => {
  it('allows the burst, refuses the next call with a retry delay, and refills with time', () => {
    let t = 0;
    const limiter = createRateLimiter({ perSecond: 2, burst: 3 }, () => t);
    const a: Caller = { uid: 'u1', credential: 'user-key', keyId: 'k1' };
    for (let i = 0; i < 3; i++) limiter.take(a, undefined);
    expect(() => limiter.take(a, undefined)).toThrow(expect.objectContaining({ code: 'RATE_LIMITED', details: { retry_after_s: 1 } }));
    // Another key and an anonymous caller have buckets of their own.
    limiter.take({ uid: 'u2', credential: 'user-key', keyId: 'k2' }, undefined);
    limiter.take(ANONYMOUS, '10.0.0.1');
    t += 500;
    limiter.take(a, undefined);
    expect(() => limiter.take(a, undefined)).toThrow(/at most 2 a second/);
  });

  it('reads CORE_RATE_LIMIT as rate/burst or off, and refuses anything else', () => {
    const fallback = { perSecond: 50, burst: 200 };
    expect(parseRateSpec(undefined, fallback)).toEqual(fallback);
    expect(parseRateSpec('5/20', fallback)).toEqual({ perSecond: 5, burst: 20 });
    expect(parseRateSpec('off', fallback)).toBeUndefined();
    expect(() => parseRateSpec('fast', fallback)).toThrow(/CORE_RATE_LIMIT/);
  });
});

describe('rate-limit tiers', () => {
  it('gives each tier its own rate, the node default to keys without one, and none when limiting is off', () => {
    const base = { perSecond: 50, burst: 200 };
    const tiers = createRateTiers(base, parseRateTiers('free=5/20,vip=off'));
    expect(tiers.rateOf(undefined)).toEqual(base);
    expect(tiers.rateOf('standard')).toEqual(base);
    expect(tiers.rateOf('free')).toEqual({ perSecond: 5, burst: 20 });
    expect(tiers.rateOf('builder')).toEqual({ perSecond: 100, burst: 400 });
    expect(tiers.rateOf('vip')).toBeUndefined();
    // A tier removed from the configuration after a key got it falls back to the default.
    expect(tiers.rateOf('retired')).toEqual(base);
    expect(createRateTiers(undefined).rateOf('free')).toBeUndefined();
    expect(() => parseRateTiers('free=fast')).toThrow(/CORE_RATE_TIERS/);
    expect(() => parseRateTiers('Free=1/2')).toThrow(/CORE_RATE_TIERS/);
  });

  it('lets a caller give a key only a known tier no more generous than its own', () => {
    const tiers = createRateTiers({ perSecond: 50, burst: 200 });
    expect(() => tiers.assertAssignable('free', undefined)).not.toThrow();
    expect(() => tiers.assertAssignable('starter', undefined)).not.toThrow();
    expect(() => tiers.assertAssignable('builder', undefined)).toThrow(expect.objectContaining({ code: 'FORBIDDEN' }));
    expect(() => tiers.assertAssignable('builder', 'architect')).not.toThrow();
    expect(() => tiers.assertAssignable('starter', 'free')).toThrow(expect.objectContaining({ code: 'FORBIDDEN' }));
    expect(() => tiers.assertAssignable('gold', undefined)).toThrow(expect.objectContaining({ code: 'VALIDATION_FAILED' }));
  });

  it('applies a key tier over HTTP: a slower tier is limited sooner, a faster one later, and minting never raises a limit', async () => {
    // A fake clock: no bucket refills while a flood is answered, however slowly.
    const server = await serve({ CORE_RATE_LIMIT: '1/8', CORE_RATE_TIERS: 'slow=1/2,fast=1/30' }, createFakeClock(Date.UTC(2026, 0, 1)));
    const owner = await mintKey(server);
    const other = await mintKey(server);
    const slug = 'tiers-m';
    await createMachine(server, owner.key, { slug });
    const devKey = async (rate_limit_tier?: string) =>
      server.call('POST', `/api/chain/${slug}/api-keys`, {
        key: owner.key,
        body: { name: `k-${rate_limit_tier ?? 'none'}`, scope: 'read', ...(rate_limit_tier ? { rate_limit_tier } : {}) },
      });
    const plain = await devKey();
    const slow = await devKey('slow');
    expect([plain.status, slow.status]).toEqual([200, 200]);
    const tooFast = await devKey('fast');
    expect(tooFast.status).toBe(403);
    expect(tooFast.body.error.details.allowed).toEqual(expect.arrayContaining(['slow', 'standard']));
    expect(tooFast.body.error.details.allowed).not.toContain('fast');
    expect((await devKey('gold')).status).toBe(400);

    const flood = async (key: string) => {
      const answers = await Promise.all(Array.from({ length: 20 }, () => server.call('GET', '/api/constants/h', { key })));
      return { ok: answers.filter((a) => a.status === 200).length, limited: answers.find((a) => a.status === 429) };
    };
    const slowRun = await flood(slow.body.api_key);
    const plainRun = await flood(plain.body.api_key);
    expect(slowRun.ok).toBeLessThanOrEqual(3);
    expect(plainRun.ok).toBeGreaterThanOrEqual(8);
    expect(plainRun.ok).toBeLessThan(20);
    expect(slowRun.limited?.body.error.message).toMatch(/\(tier slow\); at most 1 a second \(bursts of 2\)/);

    // The node operator raises one user's key to "fast" (there is no API for that, by design).
    const [record] = await server.core.store.docs.list<{ uid: string; kind: string; hash: string }>('keys', (r) => r.uid === other.uid && r.kind === 'user');
    await server.core.store.docs.put('keys', record!.hash, { ...record, rate_limit_tier: 'fast' });
    const fastRun = await flood(other.key);
    expect(fastRun.ok).toBe(20);
    await createMachine(server, other.key, { slug: 'tiers-fast' });
    const handedOn = await server.call('POST', '/api/chain/tiers-fast/api-keys', { key: other.key, body: { name: 'f', rate_limit_tier: 'fast' } });
    expect(handedOn.status).toBe(200);
  });
});

describe('rejection log budget', () => {
  it('takes 10 rows a minute from an address without a key and 60 from a key, then 429 with Retry-After; a new minute refills', async () => {
    const clock = createFakeClock();
    const server = await serve({}, clock);
    const report = (key?: string) => server.call('POST', '/api/chain/rejection-log', { ...(key ? { key } : {}), body: { reason: 'bad', slug: 'someone' } });
    const { key } = await mintKey(server);
    const anonymous = [];
    for (let i = 0; i < 11; i++) anonymous.push(await report());
    expect(anonymous.slice(0, 10).every((r) => r.status === 200)).toBe(true);
    expect(anonymous[10]!.status).toBe(429);
    expect(anonymous[10]!.body.error).toMatchObject({ code: 'RATE_LIMITED', details: { retry_after_s: expect.any(Number) } });
    expect(anonymous[10]!.body.error.message).toMatch(/10 rows a minute from one client address without a key/);
    expect(Number(anonymous[10]!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // A keyed reporter is not held back by the anonymous flood.
    const keyed = [];
    for (let i = 0; i < 61; i++) keyed.push((await report(key)).status);
    expect(keyed.slice(0, 60).every((s) => s === 200)).toBe(true);
    expect(keyed[60]).toBe(429);
    clock.advance(60_000);
    expect((await report()).status).toBe(200);
    expect((await report(key)).status).toBe(200);
  });
});

describe('limits over HTTP', () => {
  it('answers 429 RATE_LIMITED with Retry-After to a key that floods, while another key is still served', async () => {
    const server = await serve({ CORE_RATE_LIMIT: '1/5' }, createFakeClock(Date.UTC(2026, 0, 1)));
    const flooder = await mintKey(server);
    const other = await mintKey(server);
    const answers = await Promise.all(Array.from({ length: 40 }, () => server.call('GET', '/api/constants/h', { key: flooder.key })));
    const limited = answers.filter((a) => a.status === 429);
    expect(limited.length).toBeGreaterThan(0);
    expect(limited[0]!.body.error.code).toBe('RATE_LIMITED');
    expect(Number(limited[0]!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    const calm = await server.call('GET', '/api/constants/h', { key: other.key });
    expect(calm.status).toBe(200);
  });

  it('limits anonymous callers by client address', async () => {
    const server = await serve({ CORE_RATE_LIMIT: '1/3' }, createFakeClock(Date.UTC(2026, 0, 1)));
    const answers = await Promise.all(Array.from({ length: 10 }, () => server.call('GET', '/api/constants/h')));
    expect(answers.some((a) => a.status === 429)).toBe(true);
  });

  it('refuses a caller more event streams than the cap with 429, while others still open theirs', async () => {
    const server = await serve({ CORE_SSE_MAX_PER_CALLER: '2', CORE_RATE_LIMIT: 'off' });
    const a = await mintKey(server);
    const b = await mintKey(server);
    const open = (key: string) => {
      const abort = new AbortController();
      const res = fetch(`${server.url}/api/chain/aggregate/sse`, { headers: { authorization: `Bearer ${key}` }, signal: abort.signal });
      return res.then((r) => ({ status: r.status, retry: r.headers.get('retry-after'), close: () => abort.abort() }));
    };
    const first = await open(a.key);
    const second = await open(a.key);
    expect([first.status, second.status]).toEqual([200, 200]);
    const third = await open(a.key);
    expect(third.status).toBe(429);
    expect(Number(third.retry)).toBeGreaterThanOrEqual(1);
    const theirs = await open(b.key);
    expect(theirs.status).toBe(200);
    first.close();
    // The slot frees once the server sees the connection close.
    // Polled until it does (the limit only catches a slot that never frees).
    let again = 429;
    const deadline = performance.now() + 60_000;
    while (again === 429 && performance.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
      const s = await open(a.key);
      again = s.status;
      s.close();
    }
    expect(again).toBe(200);
    second.close();
    theirs.close();
  });

  it('cuts a client that sends its headers too slowly, and keeps answering other callers meanwhile', async () => {
    const server = await serve({ CORE_REQUEST_TIMEOUT_MS: '1000' });
    const { port, hostname } = new URL(server.url);
    const socket = net.connect(Number(port), hostname);
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write('GET /api/constants HTTP/1.1\r\nHost: localhost\r\n');
    const drip = setInterval(() => socket.write('X-Slow: 1\r\n'), 200);
    const closed = new Promise<string>((resolve) => {
      let got = '';
      socket.on('data', (d) => (got += d.toString()));
      socket.once('close', () => resolve(got));
    });
    expect((await server.call('GET', '/api/constants/h')).status).toBe(200);
    const answer = await closed;
    clearInterval(drip);
    expect(answer === '' || answer.startsWith('HTTP/1.1 408')).toBe(true);
  });

  it('cuts a client that sends its body too slowly', async () => {
    const server = await serve({ CORE_REQUEST_TIMEOUT_MS: '1000' });
    const { port, hostname } = new URL(server.url);
    const socket = net.connect(Number(port), hostname);
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write('POST /api/demo-key/mint HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{');
    const drip = setInterval(() => socket.write(' '), 200);
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.on('error', () => undefined);
    expect((await server.call('GET', '/api/constants/h')).status).toBe(200);
    await closed;
    clearInterval(drip);
  });

  it('refuses a body over the limit with 413 PAYLOAD_TOO_LARGE', async () => {
    const server = await serve({});
    const res = await server.call('POST', '/api/demo-key/mint', { body: { pad: 'x'.repeat(1_100_000) } });
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe('PAYLOAD_TOO_LARGE');
  });
});
