import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createFakeClock } from '../../src/lib/clock.js';
import { createMachine, mintKey, type TestServer } from '../helpers/server.js';
import { serverForTest } from '../helpers/use-server.js';
import { openSse } from '../helpers/sse.js';
import { storedDocText } from '../helpers/stored-docs.js';

async function setup(isPublic = true) {
  const server = await serverForTest();
  const owner = await mintKey(server);
  await createMachine(server, owner.key, { slug: 'site-demo', isPublic });
  /** Uploads as the owner, as another key, or anonymously with `null`. */
  const upload = (body: Record<string, unknown>, key: string | null = owner.key) =>
    server.call('POST', '/api/chain/site-demo/site/upload', { ...(key ? { key } : {}), body });
  const raw = (path: string, headers: Record<string, string> = {}, init: RequestInit = {}) =>
    fetch(`${server.url}${path}`, { redirect: 'manual', ...init, headers });
  return { server, owner, upload, raw };
}

const sha = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

describe('site files', () => {
  it('uploads a page by content hash, lists it, reads its metadata and writes a chain row', async () => {
    const t = await setup();
    const html = '<h1>hello</h1>';
    const res = await t.upload({ path: 'index.html', content: html });
    expect(res.status).toBe(200);
    expect(res.body.file).toMatchObject({ sha: sha(html), path: 'index.html', content_type: 'text/html; charset=utf-8', size: 14, uploaded_by: t.owner.uid });
    const list = await t.server.call('GET', '/api/chain/site-demo/site/list');
    expect(list.body.files.map((f: { path: string }) => f.path)).toEqual(['index.html']);
    const file = await t.server.call('GET', `/api/chain/site-demo/site/file/${sha(html)}`);
    expect(file.body.file.path).toBe('index.html');
    expect((await t.server.call('GET', `/api/chain/site-demo/site/file/${'0'.repeat(64)}`)).status).toBe(404);
    const rows = await t.server.call('GET', '/api/chain/site-demo/activity?type=site.uploaded');
    expect(rows.body.rows[0].seq).toBe(res.body.seq);
  });

  it('refuses disallowed types, oversized files, bad paths and bad base64 with clear errors', async () => {
    const t = await setup();
    const exe = await t.upload({ path: 'a.exe', content: 'x', content_type: 'application/x-msdownload' });
    expect(exe.status).toBe(400);
    expect(exe.body.error.message).toMatch(/not served by sites/);
    const big = await t.upload({ path: 'big.txt', content: 'a'.repeat(600 * 1024), content_type: 'text/plain' });
    expect(big.status).toBe(413);
    expect(big.body.error.code).toBe('PAYLOAD_TOO_LARGE');
    expect((await t.upload({ path: '../up.html', content: 'x' })).status).toBe(400);
    expect((await t.upload({ path: 'x.png', content: '@@@', encoding: 'base64', content_type: 'image/png' })).status).toBe(400);
  });

  it('needs the operator role or the publish key to upload, and hides a private machine', async () => {
    const t = await setup();
    const stranger = await mintKey(t.server);
    expect((await t.upload({ path: 'a.html', content: 'x' }, null)).status).toBe(401);
    const forbidden = await t.upload({ path: 'a.html', content: 'x' }, stranger.key);
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error.message).toMatch(/operator role or the site publish key/);
    expect((await t.upload({ path: 'a.html', content: 'x', publish_key: 'core_site_wrong' }, null)).status).toBe(403);

    const priv = await setup(false);
    const stranger2 = await mintKey(priv.server);
    expect((await priv.upload({ path: 'a.html', content: 'x' }, stranger2.key)).status).toBe(404);
    expect((await priv.upload({ path: 'a.html', content: 'x', publish_key: 'core_site_wrong' }, null)).status).toBe(404);
    expect((await priv.server.call('GET', '/api/chain/site-demo/site/list')).status).toBe(404);
  });
});

describe('publish key', () => {
  it('returns the key once, stores only its hash, lets it upload, and stops it when revoked', async () => {
    const t = await setup();
    const stranger = await mintKey(t.server);
    expect((await t.server.call('POST', '/api/chain/site-demo/site/publish-key')).status).toBe(401);
    expect((await t.server.call('POST', '/api/chain/site-demo/site/publish-key', { key: stranger.key })).status).toBe(403);
    const issued = await t.server.call('POST', '/api/chain/site-demo/site/publish-key', { key: t.owner.key });
    expect(issued.status).toBe(200);
    const key = issued.body.publish_key as string;
    expect(key).toMatch(/^core_site_[a-z2-7]{32}$/);
    const status = await t.server.call('GET', '/api/chain/site-demo/site/publish-key');
    expect(status.body).toMatchObject({ active: true, key_prefix: issued.body.key_prefix });
    expect(JSON.stringify(status.body)).not.toContain(key);
    expect(await storedDocText(t.server.dataDir, 'site-keys')).not.toContain(key);

    const up = await t.upload({ path: 'k.html', content: 'by key', publish_key: key }, null);
    expect(up.status).toBe(200);
    expect(up.body.file.uploaded_by).toBeNull();

    const revoked = await t.server.call('DELETE', '/api/chain/site-demo/site/publish-key', { key: t.owner.key });
    expect(revoked.body).toMatchObject({ revoked: true });
    expect((await t.upload({ path: 'k.html', content: 'again', publish_key: key }, null)).status).toBe(403);
    expect((await t.server.call('DELETE', '/api/chain/site-demo/site/publish-key', { key: t.owner.key })).body.revoked).toBe(false);
    const types = (await t.server.call('GET', '/api/chain/site-demo/activity')).body.rows.map((r: { type: string }) => r.type);
    expect(types).toEqual(expect.arrayContaining(['site.publish_key.issued', 'site.publish_key.revoked']));
  });
});

describe('pages at /s/{slug}/', () => {
  it('serves uploaded pages sandboxed, with an ETag, folder index and redirect', async () => {
    const t = await setup();
    await t.upload({ path: 'index.html', content: '<p>home</p>' });
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 255]);
    await t.upload({ path: 'img/dot.png', content: png.toString('base64'), encoding: 'base64', content_type: 'image/png' });
    const home = await t.raw('/s/site-demo/');
    expect(home.status).toBe(200);
    expect(home.headers.get('content-type')).toMatch(/text\/html/);
    expect(home.headers.get('content-security-policy')).toMatch(/^sandbox /);
    expect(home.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await home.text()).toBe('<p>home</p>');
    const etag = home.headers.get('etag')!;
    expect((await t.raw('/s/site-demo/', { 'if-none-match': etag })).status).toBe(304);
    const img = await t.raw('/s/site-demo/img/dot.png');
    expect(Buffer.from(await img.arrayBuffer())).toEqual(png);
    const redirect = await t.raw('/s/site-demo');
    expect(redirect.status).toBe(301);
    expect(redirect.headers.get('location')).toBe('/s/site-demo/');
    expect((await t.raw('/s/site-demo/missing.html')).status).toBe(404);
    expect((await t.raw('/s/site-demo/', {}, { method: 'DELETE' })).status).toBe(405);
  });

  it('does not serve a private machine to strangers, but to its owner and to share-token holders', async () => {
    const t = await setup(false);
    await t.upload({ path: 'index.html', content: 'private page' });
    expect((await t.raw('/s/site-demo/')).status).toBe(404);
    const stranger = await mintKey(t.server);
    expect((await t.raw('/s/site-demo/', { authorization: `Bearer ${stranger.key}` })).status).toBe(404);
    const own = await t.raw('/s/site-demo/', { authorization: `Bearer ${t.owner.key}` });
    expect(own.status).toBe(200);
    expect(own.headers.get('cache-control')).toBe('private, no-store');
    const share = await t.server.call('POST', '/api/chain/state-machines/site-demo/share/set', { key: t.owner.key, body: {} });
    expect(share.status).toBe(200);
    expect((await t.raw(`/s/site-demo/?share_token=${share.body.share_token}`)).status).toBe(200);
  });
});

describe('the site proxy /s/{slug}/sdk/core/{op}', () => {
  it('runs public reads of the machine for anyone, with CORS', async () => {
    const t = await setup();
    const state = await t.raw('/s/site-demo/sdk/core/chain.getState');
    expect(state.status).toBe(200);
    expect(state.headers.get('access-control-allow-origin')).toBe('*');
    expect((await state.json()) as any).toMatchObject({ ok: true, slug: 'site-demo' });
    const activity = await t.raw('/s/site-demo/sdk/core/chain.listActivity?limit=1');
    expect(((await activity.json()) as any).rows).toHaveLength(1);
    const preflight = await t.raw('/s/site-demo/sdk/core/chain.appendEvent', {}, { method: 'OPTIONS' });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-methods')).toContain('POST');
  });

  it('refuses operations that are not safe to expose, and unknown ones', async () => {
    const t = await setup();
    const refused = await t.raw('/s/site-demo/sdk/core/chain.setMachineStatus', {}, { method: 'POST' });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as any).error.message).toMatch(/not exposed to site pages/);
    expect((await t.raw('/s/site-demo/sdk/core/chain.issueSitePublishKey', {}, { method: 'POST' })).status).toBe(403);
    expect((await t.raw('/s/site-demo/sdk/core/nope.nothing')).status).toBe(404);
    expect((await t.raw('/s/site-demo/sdk/core/chain.getState', {}, { method: 'POST' })).status).toBe(405);
  });

  it('writes site events with the publish key attached server-side, only while a key is active', async () => {
    const t = await setup();
    const post = (body: unknown) =>
      t.raw('/s/site-demo/sdk/core/chain.appendEvent', { 'content-type': 'application/json' }, { method: 'POST', body: JSON.stringify(body) });
    const off = await post({ type: 'click', payload: { x: 1 } });
    expect(off.status).toBe(403);
    expect(((await off.json()) as any).error.message).toMatch(/no active publish key/);
    await t.server.call('POST', '/api/chain/site-demo/site/publish-key', { key: t.owner.key });
    const on = await post({ type: 'click', payload: { x: 1 }, slug: 'someone-else' });
    expect(on.status).toBe(200);
    const row = (await t.server.call('GET', '/api/chain/site-demo/activity?limit=1')).body.rows[0];
    expect(row).toMatchObject({ type: 'site.click', seq: ((await on.json()) as any).seq });
    await t.server.call('DELETE', '/api/chain/site-demo/site/publish-key', { key: t.owner.key });
    expect((await post({ type: 'click' })).status).toBe(403);
  });

  it('hides a private machine from the proxy unless the visitor may read it', async () => {
    const t = await setup(false);
    await t.server.call('POST', '/api/chain/site-demo/site/publish-key', { key: t.owner.key });
    expect((await t.raw('/s/site-demo/sdk/core/chain.getState')).status).toBe(404);
    const write = await t.raw('/s/site-demo/sdk/core/chain.appendEvent', { 'content-type': 'application/json' }, { method: 'POST', body: '{}' });
    expect(write.status).toBe(404);
    expect((await t.raw('/s/site-demo/sdk/core/chain.getState', { authorization: `Bearer ${t.owner.key}` })).status).toBe(200);
  });
});

describe('site proxy: who a write is, and what it costs', () => {
  const post = (server: TestServer, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${server.url}/s/site-demo/sdk/core/chain.appendEvent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });

  it('records a write through the site as the site, never as the owner', async () => {
    const t = await setup();
    await t.server.call('POST', '/api/chain/site-demo/site/publish-key', { key: t.owner.key });
    const visitor = await mintKey(t.server);
    for (const headers of [{}, { authorization: `Bearer ${visitor.key}` }] as Array<Record<string, string>>) {
      const res = await post(t.server, { type: 'click' }, headers);
      expect(res.status).toBe(200);
      const row = (await t.server.call('GET', '/api/chain/site-demo/activity?limit=1')).body.rows[0];
      expect(row).toMatchObject({ type: 'site.click', actor_uid: 'site:site-demo' });
      expect(row.actor_uid).not.toBe(t.owner.uid);
    }
    // The site's authority is operator on its own machine: it holds no role on the owner's other machines.
    await createMachine(t.server, t.owner.key, { slug: 'owner-private' });
    const site = await t.server.core.services.site.siteAuthority('site-demo', { uid: null, credential: 'none' });
    expect(site).toMatchObject({ uid: 'site:site-demo', credential: 'site', machine: 'site-demo' });
    expect(await t.server.core.services.machines.roleOf('site-demo', site)).toBe('operator');
    expect(await t.server.core.services.machines.roleOf('owner-private', site)).toBeUndefined();
  });

  it("limits writes through the site per visitor address and per site, apart from the owner's own budget", async () => {
    // The clock stands still, so no bucket refills during the test.
    const clock = createFakeClock();
    const server = await serverForTest({ CORE_RATE_LIMIT: '1/8' }, clock);
    const owner = await mintKey(server); // address bucket: 1 of 8
    await createMachine(server, owner.key, { slug: 'site-demo', isPublic: true });
    expect((await server.call('POST', '/api/chain/site-demo/site/publish-key', { key: owner.key })).status).toBe(200);
    const a = await mintKey(server); // address bucket: 2
    const b = await mintKey(server); // address bucket: 3
    // Anonymous visitors share their address's budget: 5 left.
    const anonymous: number[] = [];
    for (let i = 0; i < 6; i++) anonymous.push((await post(server, { type: 'anon' })).status);
    expect(anonymous).toEqual([200, 200, 200, 200, 200, 429]);
    const limited = await post(server, { type: 'anon' });
    expect(limited.status).toBe(429);
    expect(((await limited.json()) as any).error.message).toMatch(/Too many requests for this address/);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // A visitor with a key has its own budget, but the site's (8, of which 5 are spent) runs out for everyone.
    const keyed: number[] = [];
    for (let i = 0; i < 4; i++) keyed.push((await post(server, { type: 'keyed' }, { authorization: `Bearer ${a.key}` })).status);
    expect(keyed).toEqual([200, 200, 200, 429]);
    const other = await post(server, { type: 'keyed' }, { authorization: `Bearer ${b.key}` });
    expect(other.status).toBe(429);
    expect(((await other.json()) as any).error.message).toMatch(/Too many requests for site:site-demo/);
    // The owner's own writes are not held back by the site's traffic.
    expect((await server.call('POST', '/api/chain/site-demo/event', { key: owner.key, body: { type: 'own' } })).status).toBe(200);
  });

  it('limits reads through the site per visitor address', async () => {
    const clock = createFakeClock();
    const server = await serverForTest({ CORE_RATE_LIMIT: '1/4' }, clock);
    const owner = await mintKey(server); // address bucket: 1 of 4
    await createMachine(server, owner.key, { slug: 'site-demo', isPublic: true });
    const reads: number[] = [];
    for (let i = 0; i < 4; i++) reads.push((await fetch(`${server.url}/s/site-demo/sdk/core/chain.getState`)).status);
    expect(reads).toEqual([200, 200, 200, 429]);
  });
});

describe('site proxy streams', () => {
  it('counts a stream opened through the site against the same per-caller cap as the API', async () => {
    const server = await serverForTest({ CORE_SSE_MAX_PER_CALLER: '1' });
    const owner = await mintKey(server);
    await createMachine(server, owner.key, { slug: 'site-demo', isPublic: true });
    const first = await openSse(`${server.url}/api/chain/site-demo/explore/sse`);
    expect(first.res.status).toBe(200);
    const second = await fetch(`${server.url}/s/site-demo/sdk/core/chain.streamExplore`);
    expect(second.status).toBe(429);
    expect(((await second.json()) as any).error.message).toMatch(/event streams may be open at once per caller/);
  });
});
