import { describe, expect, it } from 'vitest';
import { createMachine, mintKey, signIn } from '../helpers/server.js';
import { serverForTest } from '../helpers/use-server.js';

/** A machine `edge-lab` with pages and one CDN site; `rule` upserts a rule, `visit` fetches a page without following redirects. */
async function setup(opts: { isPublic?: boolean; env?: Record<string, string> } = {}) {
  const server = await serverForTest(opts.env ?? {});
  const owner = await mintKey(server);
  await createMachine(server, owner.key, { slug: 'edge-lab', isPublic: opts.isPublic ?? true });
  const site = await server.call('POST', '/api/cf/sites', {
    key: owner.key,
    body: { slug: 'edge-lab', hostname: 'www.example.org', origin_url: 'https://origin.example.org' },
  });
  expect(site.status).toBe(200);
  const id = site.body.site.id as string;
  for (const [path, content_type] of [
    ['index.html', 'text/html'],
    ['about.html', 'text/html'],
    ['admin/panel.html', 'text/html'],
    ['docs/index.html', 'text/html'],
    ['logo.png', 'image/png'],
  ]) {
    const up = await server.call('POST', '/api/chain/edge-lab/site/upload', { key: owner.key, body: { path, content: `<h1>${path}</h1>`, content_type } });
    expect(up.status).toBe(200);
  }
  const rule = async (body: Record<string, unknown>, siteId = id) => {
    const res = await server.call('POST', `/api/cf/sites/${siteId}/rules`, { key: owner.key, body: { slug: 'edge-lab', ...body } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.rule as { rule_id: string };
  };
  const visit = (path: string, headers: Record<string, string> = {}) => fetch(`${server.url}/s/edge-lab${path}`, { redirect: 'manual', headers });
  return { server, owner, id, rule, visit };
}

describe('edge rules on served pages', () => {
  it('adds the headers of matching header rules to the page', async () => {
    const t = await setup();
    await t.rule({ kind: 'header', match_pattern: '*', action_json: { name: 'X-Frame-Options', value: 'DENY' }, priority: 1 });
    await t.rule({ kind: 'header', match_pattern: '/docs/*', action_json: { name: 'Referrer-Policy', value: 'same-origin' }, priority: 2 });
    const docs = await t.visit('/docs/');
    expect(docs.status).toBe(200);
    expect(docs.headers.get('x-frame-options')).toBe('DENY');
    expect(docs.headers.get('referrer-policy')).toBe('same-origin');
    expect(docs.headers.get('content-security-policy')).toMatch(/^sandbox /);
    const home = await t.visit('/');
    expect(home.headers.get('x-frame-options')).toBe('DENY');
    expect(home.headers.get('referrer-policy')).toBe('no-referrer');
    const csp = await t.server.call('POST', `/api/cf/sites/${t.id}/rules`, {
      key: t.owner.key,
      body: {
        slug: 'edge-lab',
        kind: 'header',
        match_pattern: '*',
        action_json: { name: 'Content-Security-Policy', value: "default-src 'self'" },
        priority: 3,
      },
    });
    expect(csp.status).toBe(400);
    expect(csp.body.error.message).toMatch(/cannot set Content-Security-Policy: the node sets it to keep site pages sandboxed/);
  });

  it('redirects with the rule status and a Location below the site, or to an absolute http(s) URL', async () => {
    const t = await setup();
    await t.rule({ kind: 'redirect', match_pattern: '/old/*', action_json: { url: '/about.html' }, priority: 1 });
    await t.rule({ kind: 'redirect', match_pattern: '/moved.html', action_json: { url: 'https://www.example.org/moved', status: 308 }, priority: 2 });
    const old = await t.visit('/old/page.html');
    expect(old.status).toBe(302);
    expect(old.headers.get('location')).toBe('/s/edge-lab/about.html');
    const moved = await t.visit('/moved.html');
    expect(moved.status).toBe(308);
    expect(moved.headers.get('location')).toBe('https://www.example.org/moved');
    for (const url of ['//evil.example/x', 'javascript:alert(1)', 'ftp://example.org/']) {
      const res = await t.server.call('POST', `/api/cf/sites/${t.id}/rules`, {
        key: t.owner.key,
        body: { slug: 'edge-lab', kind: 'redirect', match_pattern: '*', action_json: { url }, priority: 9 },
      });
      expect(res.status, url).toBe(400);
    }
  });

  it('blocks with 403 by default or the status the rule names, and counts the final status in analytics', async () => {
    const t = await setup();
    await t.rule({ kind: 'block', match_pattern: '/admin/*', action_json: {}, priority: 1 });
    await t.rule({ kind: 'block', match_pattern: '/about.html', action_json: { status: 451, reason: 'Unavailable here' }, priority: 2 });
    const admin = await t.visit('/admin/panel.html');
    expect(admin.status).toBe(403);
    expect(((await admin.json()) as any).error).toMatchObject({ code: 'FORBIDDEN', message: 'This page is blocked by a rule of its site' });
    const about = await t.visit('/about.html');
    expect(about.status).toBe(451);
    expect(((await about.json()) as any).error.message).toBe('Unavailable here');
    // Matched on the decoded path: an escaped letter does not slip past the rule.
    expect((await t.visit('/%61dmin/panel.html')).status).toBe(403);
    expect((await t.visit('/')).status).toBe(200);
    const stats = await t.server.call('GET', `/api/cf/sites/${t.id}/analytics?window=60z`);
    expect(stats.body.by_status).toEqual({ '200': 1, '403': 2, '451': 1 });
  });

  it('sets Cache-Control from page rules, and sends plain-http visitors to https when asked', async () => {
    const t = await setup({ env: { CORE_PUBLIC_URL: 'https://node.example.org' } });
    await t.rule({ kind: 'page_rule', match_pattern: '*.png', action_json: { cache: 'everything', cache_ttl_s: 86400 }, priority: 1 });
    await t.rule({ kind: 'page_rule', match_pattern: '/about.html', action_json: { cache: 'bypass' }, priority: 2 });
    await t.rule({ kind: 'page_rule', match_pattern: '/docs/*', action_json: { always_https: true }, priority: 3 });
    expect((await t.visit('/logo.png')).headers.get('cache-control')).toBe('public, max-age=86400');
    expect((await t.visit('/about.html')).headers.get('cache-control')).toBe('no-store');
    expect((await t.visit('/')).headers.get('cache-control')).toBe('public, max-age=60');
    const docs = await t.visit('/docs/?v=2');
    expect(docs.status).toBe(301);
    expect(docs.headers.get('location')).toBe('https://node.example.org/s/edge-lab/docs/?v=2');
    expect((await t.visit('/docs/', { 'x-forwarded-proto': 'https' })).status).toBe(200);
  });
});

describe('rule order and changes', () => {
  it('applies the lower priority first: the first answering rule wins and later rules do not run', async () => {
    const t = await setup();
    await t.rule({ kind: 'header', match_pattern: '*', action_json: { name: 'X-Edge', value: 'one' }, priority: 1 });
    await t.rule({ kind: 'header', match_pattern: '*', action_json: { name: 'X-Edge', value: 'two' }, priority: 2 });
    await t.rule({ kind: 'block', match_pattern: '/admin/*', action_json: {}, priority: 10 });
    await t.rule({ kind: 'redirect', match_pattern: '/admin/*', action_json: { url: '/' }, priority: 20 });
    await t.rule({ kind: 'header', match_pattern: '*', action_json: { name: 'X-After', value: 'late' }, priority: 30 });
    const blocked = await t.visit('/admin/panel.html');
    expect(blocked.status).toBe(403);
    expect(blocked.headers.get('x-edge')).toBe('one');
    expect(blocked.headers.get('x-after')).toBeNull();
    expect((await t.visit('/')).headers.get('x-after')).toBe('late');
    // The redirect moved ahead of the block.
    await t.rule({ kind: 'redirect', match_pattern: '/admin/*', action_json: { url: '/' }, priority: 5 });
    const redirected = await t.visit('/admin/panel.html');
    expect(redirected.status).toBe(302);
    expect(redirected.headers.get('location')).toBe('/s/edge-lab/');
  });

  it('orders the rules of all the machine sites together by priority', async () => {
    const t = await setup();
    const second = await t.server.call('POST', '/api/cf/sites', {
      key: t.owner.key,
      body: { slug: 'edge-lab', hostname: 'cdn.example.org', origin_url: 'https://origin.example.org' },
    });
    await t.rule({ kind: 'block', match_pattern: '/about.html', action_json: {}, priority: 7 });
    await t.rule({ kind: 'redirect', match_pattern: '/about.html', action_json: { url: '/' }, priority: 3 }, second.body.site.id);
    expect((await t.visit('/about.html')).status).toBe(302);
  });

  it('ignores disabled rules', async () => {
    const t = await setup();
    await t.rule({ kind: 'block', match_pattern: '*', action_json: {}, priority: 1, enabled: false });
    await t.rule({ kind: 'header', match_pattern: '*', action_json: { name: 'X-Off', value: '1' }, priority: 2, enabled: false });
    const home = await t.visit('/');
    expect(home.status).toBe(200);
    expect(home.headers.get('x-off')).toBeNull();
  });

  it('stops applying a deleted rule at once, and applies a replaced or re-enabled one at once', async () => {
    const t = await setup();
    expect((await t.visit('/about.html')).status).toBe(200);
    const block = await t.rule({ kind: 'block', match_pattern: '/about.html', action_json: {}, priority: 1 });
    expect((await t.visit('/about.html')).status).toBe(403);
    await t.rule({ kind: 'block', match_pattern: '/about.html', action_json: { status: 410 }, priority: 1 });
    expect((await t.visit('/about.html')).status).toBe(410);
    await t.rule({ kind: 'block', match_pattern: '/about.html', action_json: {}, priority: 1, enabled: false });
    expect((await t.visit('/about.html')).status).toBe(200);
    await t.rule({ kind: 'block', match_pattern: '/about.html', action_json: {}, priority: 1 });
    expect((await t.visit('/about.html')).status).toBe(403);
    const del = await t.server.call('DELETE', `/api/cf/sites/${t.id}/rules/${block.rule_id}?slug=edge-lab`, { key: t.owner.key });
    expect(del.status).toBe(200);
    expect((await t.visit('/about.html')).status).toBe(200);
  });

  it('keeps the rule set in memory between requests and reads it again after a purge', async () => {
    const t = await setup();
    expect((await t.visit('/about.html')).status).toBe(200);
    // Written behind the service's back: the cached (empty) rule set still answers.
    await t.server.core.store.docs.put('cdn-rules', `${t.id}|1`, {
      rule_id: 'rule_direct',
      site_id: t.id,
      kind: 'block',
      match_pattern: '*',
      action_json: { status: 403 },
      priority: 1,
      enabled: true,
      updated_at: new Date().toISOString(),
    });
    expect((await t.visit('/about.html')).status).toBe(200);
    const purge = await t.server.call('POST', `/api/cf/sites/${t.id}/purge`, { key: t.owner.key, body: { slug: 'edge-lab', all: true } });
    expect(purge.status).toBe(200);
    expect((await t.visit('/about.html')).status).toBe(403);
  });
});

describe('private machines and sessions', () => {
  it('answers 404 to strangers on a private machine whatever its rules, and applies the rules to readers', async () => {
    const t = await setup({ isPublic: false });
    await t.rule({ kind: 'block', match_pattern: '/admin/*', action_json: {}, priority: 1 });
    await t.rule({ kind: 'redirect', match_pattern: '/old/*', action_json: { url: '/' }, priority: 2 });
    await t.rule({ kind: 'page_rule', match_pattern: '*', action_json: { cache: 'everything', cache_ttl_s: 3600 }, priority: 3 });
    const stranger = await mintKey(t.server);
    for (const path of ['/admin/panel.html', '/old/x', '/']) {
      expect((await t.visit(path)).status, path).toBe(404);
      expect((await t.visit(path, { authorization: `Bearer ${stranger.key}` })).status, path).toBe(404);
    }
    const owner = { authorization: `Bearer ${t.owner.key}` };
    expect((await t.visit('/admin/panel.html', owner)).status).toBe(403);
    expect((await t.visit('/old/x', owner)).status).toBe(302);
    const home = await t.visit('/', owner);
    expect(home.status).toBe(200);
    expect(home.headers.get('cache-control')).toBe('private, no-store');
  });

  it('serves a private machine page to a browser logged in with the session cookie, not to the proxy writes', async () => {
    const server = await serverForTest();
    const login = await signIn(server, 'ada@example.org');
    const cookie = login.cookie;
    const owner = await mintKey(server);
    await createMachine(server, owner.key, { slug: 'ada-lab', isPublic: false });
    const member = await server.call('POST', '/api/chain/ada-lab/admins', { key: owner.key, body: { uid: login.uid, role: 'viewer' } });
    expect(member.status, JSON.stringify(member.body)).toBe(200);
    await server.call('POST', '/api/chain/ada-lab/site/upload', { key: owner.key, body: { path: 'index.html', content: 'members only' } });

    expect((await fetch(`${server.url}/s/ada-lab/`)).status).toBe(404);
    const page = await fetch(`${server.url}/s/ada-lab/`, { headers: { cookie } });
    expect(page.status).toBe(200);
    expect(await page.text()).toBe('members only');
    expect(page.headers.get('cache-control')).toBe('private, no-store');
    // Proxied writes never ride on the cookie: a page elsewhere could send it.
    await server.call('POST', '/api/chain/ada-lab/site/publish-key', { key: owner.key });
    const write = await fetch(`${server.url}/s/ada-lab/sdk/core/chain.appendEvent`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'click' }),
    });
    expect(write.status).toBe(404);
  });
});

describe('headers that act beyond the page', () => {
  const refusedNames = [
    'NEL',
    'Report-To',
    'Reporting-Endpoints',
    'Content-Security-Policy-Report-Only',
    'Set-Cookie',
    'Expect-CT',
    'Access-Control-Allow-Origin',
    'Cross-Origin-Opener-Policy',
    'Service-Worker-Allowed',
    'Accept-CH',
    'Link',
    'X-Accel-Redirect',
  ];

  it('refuses reporting, cookie, CORS and origin-wide headers with a VALIDATION_FAILED that names what is allowed', async () => {
    const t = await setup();
    for (const name of refusedNames) {
      const res = await t.server.call('POST', `/api/cf/sites/${t.id}/rules`, {
        key: t.owner.key,
        body: { slug: 'edge-lab', kind: 'header', match_pattern: '*', action_json: { name, value: '{"report_to":"x","max_age":86400}' }, priority: 5 },
      });
      expect(res.status, name).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_FAILED');
      expect(res.body.error.message).toContain(`cannot set ${name}`);
      expect(res.body.error.message).toContain('it may set X-Frame-Options, Referrer-Policy');
    }
    const nel = await t.server.call('POST', `/api/cf/sites/${t.id}/rules`, {
      key: t.owner.key,
      body: {
        slug: 'edge-lab',
        kind: 'header',
        match_pattern: '*',
        action_json: { name: 'NEL', value: '{"report_to":"default","max_age":31536000}' },
        priority: 5,
      },
    });
    expect(nel.body.error.message).toMatch(/report every URL of this node \(share tokens included\)/);
  });

  it('refuses a reporting endpoint inside an allowed header value', async () => {
    const t = await setup();
    const res = await t.server.call('POST', `/api/cf/sites/${t.id}/rules`, {
      key: t.owner.key,
      body: {
        slug: 'edge-lab',
        kind: 'header',
        match_pattern: '*',
        action_json: { name: 'Permissions-Policy', value: 'camera=(), report-to=collector' },
        priority: 5,
      },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/Invalid action_json\.value: no reporting endpoints/);
  });

  it('refuses NEL through core_cdn_sites over MCP and through core_http as well', async () => {
    const t = await setup();
    const action_json = { name: 'NEL', value: '{"report_to":"default","max_age":31536000}' };
    const viaHttp = await t.server.call('POST', '/api/http', {
      key: t.owner.key,
      body: { method: 'POST', path: `/api/cf/sites/${t.id}/rules`, body: { slug: 'edge-lab', kind: 'header', match_pattern: '*', action_json, priority: 5 } },
    });
    expect(viaHttp.status).toBe(400);
    expect(viaHttp.body.error.code).toBe('VALIDATION_FAILED');
    const rpc = await t.server.call('POST', '/api/mcp', {
      key: t.owner.key,
      headers: { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
      body: {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: 'core_cdn_sites',
          arguments: { action: 'upsert_rule', id: t.id, slug: 'edge-lab', kind: 'header', match_pattern: '*', action_json, priority: 5 },
        },
      },
    });
    expect(rpc.status).toBe(200);
    expect(rpc.body.result.isError).toBe(true);
    expect(rpc.body.result.structuredContent.error.code).toBe('VALIDATION_FAILED');
    expect(rpc.body.result.structuredContent.error.message).toContain('cannot set NEL');
  });

  it('no longer serves a reporting header from a rule stored before the allow-list', async () => {
    const t = await setup();
    await t.rule({ kind: 'header', match_pattern: '*', action_json: { name: 'X-Edge', value: 'ok' }, priority: 1 });
    // Rules are stored by site and priority.
    const stored = await t.server.core.store.docs.update<Record<string, unknown>>('cdn-rules', `${t.id}|1`, (current) =>
      current ? { ...current, action_json: { name: 'NEL', value: '{"report_to":"default","max_age":31536000}' } } : undefined,
    );
    expect(stored).toMatchObject({ action_json: { name: 'NEL' } });
    // What a rule write does: the edge reads the rules afresh on the next page.
    t.server.core.services.cdnEdge.invalidate('edge-lab');
    const page = await t.visit('/');
    expect(page.status).toBe(200);
    expect(page.headers.get('nel')).toBeNull();
    // The stored rule did change (it is the NEL rule now, not X-Edge), and was dropped when loaded.
    expect(page.headers.get('x-edge')).toBeNull();
  });
});
