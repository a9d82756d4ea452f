import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createRateLimiter, parseRateSpec } from '../../src/pipeline/rate-limit.js';
import { ANONYMOUS, type Caller } from '../../src/registry/types.js';
import { mintKey, startTestServer, type TestServer } from '../helpers/server.js';

const servers: TestServer[] = [];
async function serve(env: Record<string, string>) {
  const s = await startTestServer(env);
  servers.push(s);
  return s;
}
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

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

describe('limits over HTTP', () => {
  it('answers 429 RATE_LIMITED with Retry-After to a key that floods, while another key is still served', async () => {
    const server = await serve({ CORE_RATE_LIMIT: '1/5' });
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
    const server = await serve({ CORE_RATE_LIMIT: '1/3' });
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
    let again = 429;
    for (let i = 0; i < 50 && again === 429; i++) {
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
    socket.write('GET /api/constants HTTP/1.1\r\nHost: x\r\n');
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
    socket.write('POST /api/demo-key/mint HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{');
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
