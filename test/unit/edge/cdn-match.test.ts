import { describe, expect, it } from 'vitest';
import { cacheControlOf, compileGlob, decide, type CompiledRule, type PageRequest } from '../../../src/domain/edge/cdn-match.js';
import { checkMatchPattern, normalizeRuleAction, type RuleKind } from '../../../src/domain/edge/cdn-rules.js';

const rule = (priority: number, kind: RuleKind, pattern: string, action: Record<string, unknown>): CompiledRule => ({
  kind,
  priority,
  matches: compileGlob(pattern),
  action: normalizeRuleAction(kind, action),
});
const req = (path: string, more: Partial<PageRequest> = {}): PageRequest => ({
  path,
  file: path.endsWith('/') ? `${path}index.html` : path,
  url: path,
  https: false,
  ...more,
});
const site = { slug: 'lab', httpsOrigin: 'https://node.example.org' };

describe('match patterns', () => {
  it('matches the whole path, with "*" standing for any run of characters including "/"', () => {
    const blog = compileGlob('/blog/*');
    expect(blog('/blog/')).toBe(true);
    expect(blog('/blog/2024/post.html')).toBe(true);
    expect(blog('/blog')).toBe(false);
    expect(blog('/x/blog/a')).toBe(false);
    expect(compileGlob('*.pdf')('/docs/a.pdf')).toBe(true);
    expect(compileGlob('*.pdf')('/docs/a.pdf.html')).toBe(false);
    expect(compileGlob('*')('/')).toBe(true);
    expect(compileGlob('/a/*/c/*.html')('/a/b/b/c/d.html')).toBe(true);
    expect(compileGlob('/a/*/c/*.html')('/a/c/d.html')).toBe(false);
    expect(compileGlob('/a*a*a')('/aa')).toBe(false);
    expect(compileGlob('/index.html')('/index.html')).toBe(true);
    expect(compileGlob('/index.html')('/Index.html')).toBe(false);
  });

  it('decodes percent-escapes of the pattern, so it compares with decoded paths', () => {
    expect(compileGlob('/a%20b.html')('/a b.html')).toBe(true);
  });

  it('refuses patterns that could never match a path', () => {
    expect(() => checkMatchPattern('www.example.org/*')).toThrow(/start with "\/" or "\*"/);
    expect(() => checkMatchPattern('/search?q=*')).toThrow(/no "\?" or "#"/);
    expect(() => checkMatchPattern('/a%zz')).toThrow(/percent-escape/);
    expect(() => checkMatchPattern('/blog/*')).not.toThrow();
  });

  it('matches a pattern with many wildcards against a long path without backtracking', () => {
    const matches = compileGlob(`/${'*a'.repeat(400)}*b`);
    expect(matches(`/${'a'.repeat(8000)}`)).toBe(false);
  });
});

describe('deciding a page request', () => {
  it('runs rules by priority until one answers, with earlier header rules on that answer', () => {
    const rules = [
      rule(1, 'header', '*', { name: 'X-Edge', value: 'first' }),
      rule(2, 'header', '*', { name: 'x-edge', value: 'second' }),
      rule(5, 'block', '/admin/*', { status: 451, reason: 'Not here' }),
      rule(6, 'redirect', '/admin/*', { url: '/elsewhere' }),
      rule(7, 'header', '*', { name: 'X-Late', value: 'y' }),
    ];
    expect(decide(rules, req('/admin/x'), site)).toEqual({
      kind: 'answer',
      status: 451,
      headers: [['X-Edge', 'first']],
      error: { code: 'FORBIDDEN', message: 'Not here' },
    });
    expect(decide(rules, req('/home.html'), site)).toEqual({
      kind: 'serve',
      headers: [
        ['X-Edge', 'first'],
        ['X-Late', 'y'],
      ],
      cache: {},
    });
  });

  it('matches the file a folder URL names as well as the URL', () => {
    const rules = [rule(1, 'block', '/docs/index.html', {})];
    expect(decide(rules, req('/docs/'), site).kind).toBe('answer');
    expect(decide(rules, req('/docs/other.html'), site).kind).toBe('serve');
  });

  it('redirects below the site for a path and to the parsed URL for an absolute one', () => {
    expect(decide([rule(1, 'redirect', '/old/*', { url: '/new/é' })], req('/old/a'), site)).toMatchObject({ status: 302, location: '/s/lab/new/%C3%A9' });
    expect(decide([rule(1, 'redirect', '*', { url: 'https://Example.org', status: 308 })], req('/'), site)).toMatchObject({
      status: 308,
      location: 'https://example.org/',
    });
    expect(() => normalizeRuleAction('redirect', { url: '//evil.example' })).toThrow(/action_json.url/);
    expect(() => normalizeRuleAction('redirect', { url: '/\\evil.example' })).toThrow(/action_json.url/);
    expect(() => normalizeRuleAction('redirect', { url: 'https://a@evil.example/' })).toThrow(/action_json.url/);
    expect(() => normalizeRuleAction('redirect', { url: 'data:text/html,x' })).toThrow(/action_json.url/);
  });

  it('answers a 404 block exactly like a missing page', () => {
    const decision = decide([rule(1, 'block', '*', { status: 404 })], req('/secret.html'), site);
    expect(decision).toMatchObject({
      status: 404,
      error: { code: 'NOT_FOUND', message: 'No page "secret.html" on the site of "lab"', details: { slug: 'lab', path: 'secret.html' } },
    });
  });

  it('sends plain-http visitors to https when a page rule asks, and only them', () => {
    const rules = [rule(1, 'page_rule', '*', { always_https: true })];
    expect(decide(rules, req('/a.html', { url: '/a.html?x=1' }), site)).toMatchObject({ status: 301, location: 'https://node.example.org/s/lab/a.html?x=1' });
    expect(decide(rules, req('/a.html', { https: true }), site).kind).toBe('serve');
    expect(decide(rules, req('/a.html'), { slug: 'lab', httpsOrigin: undefined }).kind).toBe('serve');
  });

  it('takes the cache mode and TTL from the first page rule that sets each', () => {
    const rules = [rule(1, 'page_rule', '/assets/*', { cache_ttl_s: 3600 }), rule(2, 'page_rule', '*', { cache: 'standard', cache_ttl_s: 5 })];
    expect(decide(rules, req('/assets/a.png'), site)).toMatchObject({ cache: { mode: 'standard', ttl_s: 3600 } });
  });
});

describe('Cache-Control of a served page', () => {
  const html = { isPublic: true, contentType: 'text/html; charset=utf-8' };
  const png = { isPublic: true, contentType: 'image/png' };
  it('follows the page rule cache mode, and never lets a private page be stored', () => {
    expect(cacheControlOf({}, html)).toBe('public, max-age=60');
    expect(cacheControlOf({ ttl_s: 600 }, png)).toBe('public, max-age=600');
    expect(cacheControlOf({ mode: 'bypass' }, png)).toBe('no-store');
    expect(cacheControlOf({ mode: 'standard', ttl_s: 600 }, html)).toBe('public, no-cache');
    expect(cacheControlOf({ mode: 'standard', ttl_s: 600 }, png)).toBe('public, max-age=600');
    expect(cacheControlOf({ mode: 'everything', ttl_s: 600 }, html)).toBe('public, max-age=600');
    expect(cacheControlOf({ mode: 'everything', ttl_s: 600 }, { ...html, isPublic: false })).toBe('private, no-store');
  });
});

describe('header rule names and values', () => {
  it('refuses headers that would unsandbox pages, act on the whole node or break the response', () => {
    expect(() => normalizeRuleAction('header', { name: 'Content-Security-Policy', value: "default-src 'self'" })).toThrow(/sandboxed/);
    expect(() => normalizeRuleAction('header', { name: 'Strict-Transport-Security', value: 'max-age=1' })).toThrow(/whole node/);
    expect(() => normalizeRuleAction('header', { name: 'Cache-Control', value: 'no-store' })).toThrow(/page_rule/);
    expect(() => normalizeRuleAction('header', { name: 'X-A', value: 'caf\u00e9' })).toThrow(/printable ASCII/);
    expect(() => normalizeRuleAction('page_rule', { cache: 'bypass', cache_ttl_s: 60 })).toThrow(/no effect with cache: bypass/);
    expect(normalizeRuleAction('header', { name: 'Referrer-Policy', value: 'same-origin' })).toEqual({ name: 'Referrer-Policy', value: 'same-origin' });
  });
});
