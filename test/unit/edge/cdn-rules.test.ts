import { describe, expect, it } from 'vitest';
import { normalizeRuleAction } from '../../../src/domain/edge/cdn-rules.js';
import { windowTicks } from '../../../src/domain/edge/forensic.js';

describe('CDN rule actions', () => {
  it('fills defaults for redirects and blocks', () => {
    expect(normalizeRuleAction('redirect', { url: 'https://example.org/new' })).toEqual({ url: 'https://example.org/new', status: 302 });
    expect(normalizeRuleAction('block', {})).toEqual({ status: 403 });
    expect(normalizeRuleAction('page_rule', { cache: 'bypass', cache_ttl_s: 0 })).toEqual({ cache: 'bypass', cache_ttl_s: 0 });
  });

  it('refuses unknown keys, reserved headers and statuses that do not fit the kind', () => {
    expect(() => normalizeRuleAction('redirect', { url: 'javascript:alert(1)' })).toThrow(/action_json.url/);
    expect(() => normalizeRuleAction('header', { name: 'Authorization', value: 'x' })).toThrow(/action_json.name/);
    expect(() => normalizeRuleAction('block', { status: 200 })).toThrow(/action_json.status/);
    expect(() => normalizeRuleAction('page_rule', {})).toThrow(/at least one/);
    expect(() => normalizeRuleAction('header', { name: 'X-A', value: 'b', extra: 1 })).toThrow(/takes only name, value/);
  });
});

describe('threat windows', () => {
  it('converts a window to whole ticks, rounding up', () => {
    expect(windowTicks('1s')).toBe(2);
    expect(windowTicks('24h')).toBe(Math.ceil(86_400_000 / 777));
    expect(() => windowTicks('1w')).toThrow();
  });
});
