import { describe, expect, it } from 'vitest';
import { proxyRuleOf } from '../../../src/domain/site/site-proxy.js';
import { checkSitePath, normalizeContentType, sitePathOfUrl } from '../../../src/domain/site/site-rules.js';
import { buildRegistry } from '../../../src/registry/registry.js';
import { allTools } from '../../../tools/index.js';

describe('site rules', () => {
  it('accepts allow-listed content types, adds utf-8 to text, and refuses the rest', () => {
    expect(normalizeContentType('TEXT/HTML')).toBe('text/html; charset=utf-8');
    expect(normalizeContentType('image/png')).toBe('image/png');
    expect(normalizeContentType('text/css; charset=UTF-8')).toBe('text/css; charset=utf-8');
    expect(() => normalizeContentType('application/x-msdownload')).toThrow(/not served/);
    expect(() => normalizeContentType('text/html; charset=latin1')).toThrow(/charset=utf-8/);
  });

  it('accepts relative paths only', () => {
    expect(checkSitePath('docs/intro.html')).toBe('docs/intro.html');
    for (const bad of ['/abs.html', 'a//b', '../up.html', 'a/./b', 'dir/']) expect(() => checkSitePath(bad)).toThrow(/Invalid site path/);
  });

  it('maps page URLs to files, folders to their index.html', () => {
    expect(sitePathOfUrl('')).toBe('index.html');
    expect(sitePathOfUrl('docs/')).toBe('docs/index.html');
    expect(sitePathOfUrl('a%20b.html')).toBe('a b.html');
    expect(sitePathOfUrl('..%2Fsecret')).toBeUndefined();
    expect(sitePathOfUrl('%E0%A4%A')).toBeUndefined();
  });
});

describe('the site proxy policy', () => {
  const registry = buildRegistry(allTools);
  const rule = (id: string) => proxyRuleOf(registry.byId.get(id)!.def).kind;

  it('exposes public reads of the machine and the site event write, and nothing else', () => {
    expect(rule('chain.getState')).toBe('read');
    expect(rule('chain.listActivity')).toBe('read');
    expect(rule('chain.appendEvent')).toBe('write');
    for (const id of [
      'chain.setMachineStatus',
      'chain.issueSitePublishKey',
      'chain.uploadSitePage',
      'chain.listMachines',
      'chain.getSeal',
      'chain.anchorHead',
    ]) {
      expect(rule(id), id).toBe('refused');
    }
  });

  it('never exposes an operation that needs a role, writes without being listed, or spans machines', () => {
    for (const op of registry.operations) {
      const kind = proxyRuleOf(op.def).kind;
      if (kind === 'read') {
        expect(op.method, op.id).toBe('GET');
        expect(op.def.role, op.id).toBeUndefined();
        expect(op.def.auth, op.id).toBe('public');
        expect(op.path, op.id).toContain('{slug}');
      }
      if (kind === 'write') expect(op.id).toBe('chain.appendEvent');
    }
  });

  it('prefixes event types written through a site', () => {
    const r = proxyRuleOf(registry.byId.get('chain.appendEvent')!.def);
    expect(r.kind === 'write' && r.prepare({ slug: 's', type: 'click' })).toEqual({ slug: 's', type: 'site.click' });
  });
});
