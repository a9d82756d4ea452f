import { describe, expect, it } from 'vitest';
import { createFakeClock } from '../../src/lib/clock.js';
import { createMachine, mintKey } from '../helpers/server.js';
import { serverForTest } from '../helpers/use-server.js';

async function setup(opts: { isPublic?: boolean; clock?: ReturnType<typeof createFakeClock> } = {}) {
  const server = await serverForTest({}, opts.clock);
  const owner = await mintKey(server);
  await createMachine(server, owner.key, { slug: 'cdn-lab', isPublic: opts.isPublic ?? true });
  const register = (body: Record<string, unknown> = {}, key: string | null = owner.key) =>
    server.call('POST', '/api/cf/sites', {
      ...(key ? { key } : {}),
      body: { slug: 'cdn-lab', hostname: 'www.example.org', origin_url: 'https://origin.example.org', ...body },
    });
  return { server, owner, register };
}

describe('sites', () => {
  it('registers a hostname in front of an origin, with CNAME instructions and an audit row', async () => {
    const t = await setup();
    const res = await t.register();
    expect(res.status).toBe(200);
    expect(res.body.already_registered).toBe(false);
    expect(res.body.site).toMatchObject({
      hostname: 'www.example.org',
      origin_url: 'https://origin.example.org',
      plan_tier: 'free',
      machine_slug: 'cdn-lab',
      status: 'pending_cname',
      insecure_origin_allowed: false,
      free_tier_daily_cap: 100000,
    });
    expect(res.body.site.edge_id).toMatch(/^[0-9a-f]{16}$/);
    expect(res.body.dns_instructions).toMatchObject({ cname_target: `${res.body.site.edge_id}.edge.localhost`, hostname: 'www.example.org' });
    const rows = await t.server.call('GET', '/api/chain/cdn-lab/activity?type=cdn.site.registered');
    expect(rows.body.rows).toHaveLength(1);
    const list = await t.server.call('GET', '/api/cf/sites?slug=cdn-lab');
    expect(list.body.sites.map((s: any) => s.id)).toEqual([res.body.site.id]);
    const got = await t.server.call('GET', `/api/cf/sites/${res.body.site.id}`);
    expect(got.body).toMatchObject({ site: { id: res.body.site.id }, rules: [] });
  });

  it('answers a repeat with already_registered, and a hostname taken elsewhere or with another origin with 409', async () => {
    const t = await setup();
    const first = await t.register({ plan_tier: 'pro' });
    expect(first.body.site.free_tier_daily_cap).toBeNull();
    const again = await t.register({ plan_tier: 'pro' });
    expect(again.body).toMatchObject({ already_registered: true, site: { id: first.body.site.id } });
    const otherOrigin = await t.register({ origin_url: 'https://elsewhere.example.org' });
    expect(otherOrigin.status).toBe(409);
    const rival = await mintKey(t.server);
    await createMachine(t.server, rival.key, { slug: 'rival-lab' });
    const taken = await t.server.call('POST', '/api/cf/sites', {
      key: rival.key,
      body: { slug: 'rival-lab', hostname: 'www.example.org', origin_url: 'https://o.example.org' },
    });
    expect(taken.status).toBe(409);
    expect(taken.body.error.details.code).toBe('hostname_already_registered');
    expect(JSON.stringify(taken.body)).not.toContain('cdn-lab');
  });

  it('needs a key (401) and admin (403) to register, and refuses a bad hostname (400)', async () => {
    const t = await setup();
    expect((await t.register({}, null)).status).toBe(401);
    const stranger = await mintKey(t.server);
    expect((await t.register({}, stranger.key)).status).toBe(403);
    expect((await t.register({ hostname: 'Not A Host' })).status).toBe(400);
  });

  it('hides the sites of a private machine, by slug or by site id, without naming the machine', async () => {
    const t = await setup({ isPublic: false });
    const site = (await t.register()).body.site;
    const stranger = await mintKey(t.server);
    expect((await t.server.call('GET', '/api/cf/sites?slug=cdn-lab', { key: stranger.key })).status).toBe(404);
    const byId = await t.server.call('GET', `/api/cf/sites/${site.id}`, { key: stranger.key });
    expect(byId.status).toBe(404);
    expect(byId.body.error.message).not.toContain('cdn-lab');
    expect((await t.server.call('GET', `/api/cf/sites/${site.id}/analytics`)).status).toBe(404);
    expect((await t.server.call('GET', `/api/cf/sites/${site.id}`, { key: t.owner.key })).status).toBe(200);
    expect((await t.server.call('GET', `/api/cf/sites/${site.id}?slug=other-lab`, { key: t.owner.key })).status).toBe(404);
  });
});

describe('rules', () => {
  it('creates a rule, replaces the one at the same priority, lists them by priority and deletes one', async () => {
    const t = await setup();
    const id = (await t.register()).body.site.id;
    const upsert = (body: Record<string, unknown>) =>
      t.server.call('POST', `/api/cf/sites/${id}/rules`, { key: t.owner.key, body: { slug: 'cdn-lab', ...body } });
    const redirect = await upsert({ kind: 'redirect', match_pattern: '/old/*', action_json: { url: '/new/' }, priority: 10 });
    expect(redirect.status).toBe(200);
    expect(redirect.body).toMatchObject({ created: true, rule: { kind: 'redirect', action_json: { url: '/new/', status: 302 }, priority: 10, enabled: true } });
    const header = await upsert({ kind: 'header', match_pattern: '*', action_json: { name: 'X-Frame-Options', value: 'DENY' }, priority: 5 });
    expect(header.body.created).toBe(true);
    const replaced = await upsert({ kind: 'block', match_pattern: '/admin/*', action_json: {}, priority: 10 });
    expect(replaced.body).toMatchObject({ created: false, rule: { rule_id: redirect.body.rule.rule_id, kind: 'block', action_json: { status: 403 } } });
    const site = await t.server.call('GET', `/api/cf/sites/${id}`);
    expect(site.body.rules.map((r: any) => [r.priority, r.kind])).toEqual([
      [5, 'header'],
      [10, 'block'],
    ]);

    const del = await t.server.call('DELETE', `/api/cf/sites/${id}/rules/${header.body.rule.rule_id}?slug=cdn-lab`, { key: t.owner.key });
    expect(del.body).toEqual({ ok: true, deleted: true, rule_id: header.body.rule.rule_id });
    expect((await t.server.call('DELETE', `/api/cf/sites/${id}/rules/${header.body.rule.rule_id}?slug=cdn-lab`, { key: t.owner.key })).status).toBe(404);
    const rows = await t.server.call('GET', '/api/chain/cdn-lab/activity?type=cdn.rule.upserted');
    expect(rows.body.rows).toHaveLength(3);
  });

  it('refuses rule actions that do not fit their kind, and rule writes without admin', async () => {
    const t = await setup();
    const id = (await t.register()).body.site.id;
    const upsert = (body: Record<string, unknown>, key: string | null = t.owner.key) =>
      t.server.call('POST', `/api/cf/sites/${id}/rules`, { ...(key ? { key } : {}), body: { slug: 'cdn-lab', match_pattern: '*', priority: 1, ...body } });
    const badStatus = await upsert({ kind: 'redirect', action_json: { url: '/x', status: 200 } });
    expect(badStatus.status).toBe(400);
    expect(badStatus.body.error.message).toMatch(/action_json.status/);
    expect((await upsert({ kind: 'header', action_json: { name: 'Set-Cookie', value: 'a=b' } })).status).toBe(400);
    expect((await upsert({ kind: 'header', action_json: { name: 'X-A', value: 'a\r\nb' } })).status).toBe(400);
    expect((await upsert({ kind: 'page_rule', action_json: { cache_tll: 5 } })).status).toBe(400);
    expect((await upsert({ kind: 'page_rule', action_json: { cache: 'bypass' }, match_pattern: '/a b' })).status).toBe(400);
    expect((await upsert({ kind: 'block', action_json: {} }, null)).status).toBe(401);
    const stranger = await mintKey(t.server);
    expect((await upsert({ kind: 'block', action_json: {} }, stranger.key)).status).toBe(403);
  });
});

describe('traffic, analytics and purge', () => {
  async function withPages(clock?: ReturnType<typeof createFakeClock>) {
    const t = await setup({ clock });
    const id = (await t.register()).body.site.id as string;
    for (const path of ['index.html', 'about.html']) {
      const up = await t.server.call('POST', '/api/chain/cdn-lab/site/upload', { key: t.owner.key, body: { path, content: `<h1>${path}</h1>` } });
      expect(up.status).toBe(200);
    }
    const visit = async (path: string) => (await fetch(`${t.server.url}/s/cdn-lab/${path}`)).status;
    return { ...t, id, visit };
  }

  it('counts the requests served at /s/{slug}/ in time buckets and by status', async () => {
    const clock = createFakeClock(Date.now());
    const t = await withPages(clock);
    expect(await t.visit('index.html')).toBe(200);
    expect(await t.visit('index.html')).toBe(200);
    expect(await t.visit('about.html')).toBe(200);
    expect(await t.visit('missing.html')).toBe(404);
    const recent = await t.server.call('GET', `/api/cf/sites/${t.id}/analytics?window=60z`);
    expect(recent.status).toBe(200);
    expect(recent.body).toMatchObject({ site_id: t.id, window: '60z', total_requests: 4, by_status: { '200': 3, '404': 1 } });
    expect(recent.body.buckets).toHaveLength(12);
    expect(recent.body.buckets.at(-1).requests).toBe(4);
    expect(recent.body.buckets.at(-1).to_tick).toBe(Math.floor(clock.now() / 777) + 1);

    clock.advance(120 * 777);
    expect((await t.server.call('GET', `/api/cf/sites/${t.id}/analytics?window=60z`)).body.total_requests).toBe(0);
    const day = await t.server.call('GET', `/api/cf/sites/${t.id}/analytics`);
    expect(day.body).toMatchObject({ window: '24h', total_requests: 4 });
    expect(day.body.buckets).toHaveLength(24);
    expect((await t.server.call('GET', `/api/cf/sites/${t.id}/analytics?window=7d`)).body.buckets).toHaveLength(28);
    expect((await t.server.call('GET', `/api/cf/sites/${t.id}/analytics?window=30d`)).status).toBe(400);
  });

  it('keeps the counts across a restart of the counter (flushed to the log)', async () => {
    const t = await withPages();
    await t.visit('index.html');
    await t.server.core.services.cdnTraffic.stop();
    const res = await t.server.call('GET', `/api/cf/sites/${t.id}/analytics?window=60z`);
    expect(res.body.total_requests).toBe(1);
  });

  it('purges served paths or everything, and refuses a purge that names neither', async () => {
    const t = await withPages();
    await t.visit('index.html');
    await t.visit('about.html');
    const purge = (body: Record<string, unknown>, key: string | null = t.owner.key) =>
      t.server.call('POST', `/api/cf/sites/${t.id}/purge`, { ...(key ? { key } : {}), body: { slug: 'cdn-lab', ...body } });
    expect((await purge({ paths: ['/index.html', '/never.html'] })).body).toEqual({ ok: true, purged: 1 });
    expect((await purge({ all: true })).body.purged).toBe(1);
    expect((await purge({ all: true })).body.purged).toBe(0);
    expect((await purge({})).status).toBe(400);
    expect((await purge({ all: true, paths: ['/a'] })).status).toBe(400);
    expect((await purge({ all: true }, null)).status).toBe(401);
    const rows = await t.server.call('GET', '/api/chain/cdn-lab/activity?type=cdn.purged');
    expect(rows.body.rows).toHaveLength(3);
  });
});
