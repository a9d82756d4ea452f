import { describe, expect, it } from 'vitest';
import { createContactRepository } from '../../src/domain/general/contact-repository.js';
import { createMachine, mintKey } from '../helpers/server.js';
import { serverForTest } from '../helpers/use-server.js';

async function start() {
  const server = await serverForTest();
  return server;
}

describe('conformance badge', () => {
  it('is an SVG counting the operations that pass a self-check run on a throwaway core', async () => {
    const server = await start();
    const res = await fetch(`${server.url}/api/conformance/badge.svg`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
    expect(res.headers.get('cache-control')).toBe('public, max-age=300');
    const svg = await res.text();
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    expect(svg).toMatch(/<\/svg>$/);
    const [, passed, checked] = /(\d+)\/(\d+) passing/.exec(svg) ?? [];
    const total = server.core.registry.operations.length;
    expect(Number(checked)).toBeGreaterThan(total * 0.9);
    expect(Number(checked)).toBeLessThanOrEqual(total);
    expect(Number(passed)).toBeGreaterThan(0);
    expect(Number(passed)).toBeLessThanOrEqual(Number(checked));
    expect(svg).toMatch(/<title>\d+ of \d+ operations pass the self-check/);

    const report = await server.core.app.selfCheck.report();
    expect(report.passed + report.failed + report.skipped).toBe(report.total);
    expect(report.failures.every((f) => f.op !== 'platform.getConformanceBadge')).toBe(true);
    // Cached: a second badge is the same run.
    expect(await (await fetch(`${server.url}/api/conformance/badge.svg`)).text()).toBe(svg);
    // The check never touched this server's data: its smoke machine and key are not here.
    expect((await server.call('GET', '/api/chain/state-machines/self-check')).status).toBe(404);
    expect(await server.core.store.docs.count('keys')).toBe(0);
  });
});

describe('contact', () => {
  it('stores a message and rate-limits a sender after five an hour', async () => {
    const server = await start();
    const send = (n: number) =>
      server.call('POST', '/api/contact', { body: { name: 'Ada', email: 'ada@example.org', subject: `hello ${n}`, message: 'A question about contracts.' } });
    const first = await send(1);
    expect(first.status).toBe(200);
    expect(first.body.id).toMatch(/^msg_/);
    const rows = await createContactRepository(server.core.store).messages();
    expect(rows).toEqual([expect.objectContaining({ id: first.body.id, name: 'Ada', email: 'ada@example.org', subject: 'hello 1', from_uid: null })]);
    for (let n = 2; n <= 5; n++) expect((await send(n)).status).toBe(200);
    const limited = await send(6);
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('RATE_LIMITED');
    expect(await createContactRepository(server.core.store).messages()).toHaveLength(5);
    const user = await mintKey(server);
    const signedIn = await server.call('POST', '/api/contact', {
      key: user.key,
      body: { name: 'Ada', email: 'ada@example.org', message: 'Signed in this time.' },
    });
    expect(signedIn.status).toBe(200);
  });

  it('refuses an invalid address or an empty message', async () => {
    const server = await start();
    expect((await server.call('POST', '/api/contact', { body: { name: 'Ada', email: 'nope', message: 'x' } })).status).toBe(400);
    expect((await server.call('POST', '/api/contact', { body: { name: 'Ada', email: 'ada@example.org', message: '' } })).status).toBe(400);
  });
});

describe('apps/track', () => {
  it('appends an audited app.tracked row to the named machine, or to the machine of a machine key', async () => {
    const server = await start();
    const owner = await mintKey(server);
    const made = await server.call('POST', '/api/chain/state-machines', { key: owner.key, body: { slug: 'app-lab' } });
    const res = await server.call('POST', '/api/apps/track', {
      key: owner.key,
      body: { app: 'dashboard', event: 'export.clicked', slug: 'app-lab', properties: { rows: 12 } },
    });
    expect(res.status).toBe(200);
    const rows = await server.call('GET', '/api/chain/app-lab/activity?type=app.tracked', { key: owner.key });
    expect(rows.body.rows[0]).toMatchObject({ id: res.body.audit_row_id, tick: res.body.tick, actor_uid: owner.uid });
    const byMachineKey = await server.call('POST', '/api/apps/track', { key: made.body.api_key, body: { app: 'dashboard', event: 'opened' } });
    expect(byMachineKey.status).toBe(200);
    expect(byMachineKey.body.audit_row_id).toMatch(/^app-lab:/);
  });

  it('refuses no key (401), no machine (400), a private machine of others (404), a viewer (403) and big properties (413)', async () => {
    const server = await start();
    const owner = await mintKey(server);
    await createMachine(server, owner.key, { slug: 'app-lab' });
    const viewer = await mintKey(server);
    await server.call('POST', '/api/chain/app-lab/admins', { key: owner.key, body: { uid: viewer.uid, role: 'viewer' } });
    const stranger = await mintKey(server);
    const track = (key: string | null, body: Record<string, unknown> = {}) =>
      server.call('POST', '/api/apps/track', { ...(key ? { key } : {}), body: { app: 'dashboard', event: 'opened', slug: 'app-lab', ...body } });
    expect((await track(null)).status).toBe(401);
    const noSlug = await server.call('POST', '/api/apps/track', { key: owner.key, body: { app: 'dashboard', event: 'opened' } });
    expect(noSlug.status).toBe(400);
    expect(noSlug.body.error.message).toMatch(/give slug/);
    expect((await track(stranger.key)).status).toBe(404);
    expect((await track(viewer.key)).status).toBe(403);
    expect((await track(owner.key, { properties: { blob: 'x'.repeat(5000) } })).status).toBe(413);
    expect((await track(owner.key, { event: 'Bad Event' })).status).toBe(400);
  });
});
