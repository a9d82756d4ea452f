import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClientMetadataFetcher, type ClientMetadataFetcherOptions } from '../../../src/domain/oauth/cimd/client-metadata-fetcher.js';
import { ClientMetadataError } from '../../../src/domain/oauth/cimd/client-metadata-error.js';
import type { ResolveHost, ResolvedAddress } from '../../../src/domain/oauth/cimd/resolve-host.js';
import { createFakeClock } from '../../../src/lib/clock.js';
import { startHttpsFixture, type HttpsFixture } from '../../helpers/https-fixture.js';

let fixture: HttpsFixture;
beforeAll(async () => {
  fixture = await startHttpsFixture();
});
afterAll(async () => {
  await fixture.close();
});

const fixtureDns: ResolveHost = async () => [{ address: '127.0.0.1', family: 4 }];
const hits = (path: string) => fixture.requests.filter((r) => r.path === path).length;

function fetcher(options: ClientMetadataFetcherOptions = {}) {
  return createClientMetadataFetcher({ resolve: fixtureDns, testTrust: { ca: fixture.caPem }, ...options });
}

describe('the metadata cache', () => {
  it('serves a fresh document from the cache and fetches again once its max-age (within the bounds) has passed', async () => {
    const clock = createFakeClock();
    const clientId = fixture.document('/cached.json', {}, { host: 'client.test', headers: { 'cache-control': 'max-age=600' } });
    const f = fetcher({ now: clock.now, cache: { minTtlMs: 60_000, maxTtlMs: 3_600_000 } });
    await f.fetchClient(clientId);
    clock.advance(599_000);
    const copy = await f.fetchClient(clientId);
    expect(hits('/cached.json')).toBe(1);
    copy.redirect_uris.push('https://evil.example/cb');
    expect((await f.fetchClient(clientId)).redirect_uris).toEqual(['http://127.0.0.1:33418/callback']);
    clock.advance(2_000);
    await f.fetchClient(clientId);
    expect(hits('/cached.json')).toBe(2);
  });

  it('keeps a no-store document for the floor and a year-long one only for the ceiling', async () => {
    const clock = createFakeClock();
    const noStore = fixture.document('/nostore.json', {}, { host: 'client.test', headers: { 'cache-control': 'no-store' } });
    const long = fixture.document('/long.json', {}, { host: 'client.test', headers: { 'cache-control': 'max-age=31536000' } });
    const f = fetcher({ now: clock.now, cache: { minTtlMs: 60_000, maxTtlMs: 3_600_000 } });
    await f.fetchClient(noStore);
    await f.fetchClient(long);
    clock.advance(59_000);
    await f.fetchClient(noStore);
    expect(hits('/nostore.json')).toBe(1);
    clock.advance(3_600_000);
    await f.fetchClient(noStore);
    await f.fetchClient(long);
    expect([hits('/nostore.json'), hits('/long.json')]).toEqual([2, 2]);
  });

  it('remembers a failure for the negative lifetime instead of fetching again', async () => {
    const clock = createFakeClock();
    fixture.route('/flaky.json', { headers: { 'content-type': 'text/plain' }, body: 'nope' });
    const clientId = fixture.url('/flaky.json', 'client.test');
    const f = fetcher({ now: clock.now, negativeCache: { ttlMs: 30_000 } });
    await expect(f.fetchClient(clientId)).rejects.toMatchObject({ code: 'NOT_JSON' });
    await expect(f.fetchClient(clientId)).rejects.toMatchObject({ code: 'NOT_JSON' });
    expect(hits('/flaky.json')).toBe(1);
    fixture.document('/flaky.json', {}, { host: 'client.test' });
    clock.advance(30_001);
    await expect(f.fetchClient(clientId)).resolves.toMatchObject({ client_id: clientId });
    expect(hits('/flaky.json')).toBe(2);
  });

  it('holds at most maxEntries failures however many distinct URLs are tried', async () => {
    let lookups = 0;
    const f = createClientMetadataFetcher({
      resolve: async () => (lookups++, [{ address: '10.0.0.1', family: 4 }]),
      negativeCache: { maxEntries: 10 },
    });
    for (let i = 0; i < 200; i++) await expect(f.fetchClient(`https://h${i}.example/app.json`)).rejects.toMatchObject({ code: 'ADDRESS_REFUSED' });
    // The ten most recent are remembered (no lookup); the oldest was evicted (looked up again).
    await expect(f.fetchClient('https://h199.example/app.json')).rejects.toMatchObject({ code: 'ADDRESS_REFUSED' });
    expect(lookups).toBe(200);
    await expect(f.fetchClient('https://h0.example/app.json')).rejects.toMatchObject({ code: 'ADDRESS_REFUSED' });
    expect(lookups).toBe(201);
  });
});

describe('the concurrency caps', () => {
  /** A resolver that answers only when the test says: the fetches it holds stay running. */
  function heldResolver() {
    const waiting: ((a: ResolvedAddress[]) => void)[] = [];
    const resolve: ResolveHost = () => new Promise((done) => waiting.push(done));
    return { resolve, waiting };
  }

  it('never runs more fetches at once than the overall cap; the rest are BUSY at once, and nothing queues', async () => {
    const held = heldResolver();
    const f = createClientMetadataFetcher({ resolve: held.resolve, maxConcurrent: 4, maxConcurrentPerHost: 4 });
    const results = Array.from({ length: 500 }, (_, i) => f.fetchClient(`https://h${i}.example/app.json`).catch((e: ClientMetadataError) => e.code));
    await new Promise((r) => setImmediate(r));
    expect(held.waiting).toHaveLength(4);
    for (const done of held.waiting) done([{ address: '10.0.0.1', family: 4 }]);
    const codes = await Promise.all(results);
    expect(codes.filter((c) => c === 'BUSY')).toHaveLength(496);
    expect(codes.filter((c) => c === 'ADDRESS_REFUSED')).toHaveLength(4);
    // The slots were given back, and BUSY was not remembered as a failure: the next try really fetches.
    const again = f.fetchClient('https://h499.example/app.json');
    await new Promise((r) => setImmediate(r));
    expect(held.waiting).toHaveLength(5);
    held.waiting[4]!([{ address: '10.0.0.1', family: 4 }]);
    await expect(again).rejects.toMatchObject({ code: 'ADDRESS_REFUSED' });
  });

  it('caps fetches per host, and shares one fetch between callers of the same client_id', async () => {
    const held = heldResolver();
    const f = createClientMetadataFetcher({ resolve: held.resolve, maxConcurrent: 8, maxConcurrentPerHost: 2 });
    const same = [f.fetchClient('https://one.example/a.json'), f.fetchClient('https://one.example/a.json')];
    const b = f.fetchClient('https://one.example/b.json');
    await expect(f.fetchClient('https://one.example/c.json')).rejects.toMatchObject({ code: 'BUSY' });
    const other = f.fetchClient('https://two.example/a.json');
    await new Promise((r) => setImmediate(r));
    expect(held.waiting).toHaveLength(3);
    for (const done of held.waiting) done([{ address: '10.0.0.1', family: 4 }]);
    for (const p of [...same, b, other]) await expect(p).rejects.toMatchObject({ code: 'ADDRESS_REFUSED' });
  });
});
