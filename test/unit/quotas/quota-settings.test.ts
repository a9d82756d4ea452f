import { describe, expect, it } from 'vitest';
import { DEFAULT_QUOTAS, NO_QUOTAS, parseQuotaSettings } from '../../../src/domain/quotas/quota-settings.js';
import { loadConfig } from '../../../src/config.js';

describe('CORE_QUOTAS', () => {
  it('keeps the defaults when unset and turns every quota off with "off"', () => {
    expect(parseQuotaSettings(undefined)).toEqual(DEFAULT_QUOTAS);
    expect(parseQuotaSettings('')).toEqual(DEFAULT_QUOTAS);
    expect(parseQuotaSettings('off')).toEqual(NO_QUOTAS);
    expect(parseQuotaSettings(' OFF ')).toEqual(NO_QUOTAS);
    expect(Object.values(NO_QUOTAS).every((v) => v === null)).toBe(true);
  });

  it('replaces only the named quotas, each a count or off', () => {
    expect(parseQuotaSettings('machines=200, contracts_per_machine=off')).toEqual({ ...DEFAULT_QUOTAS, machines: 200, contracts_per_machine: null });
  });

  it('stops the server at start on an unknown name or a value that is not a count', () => {
    for (const bad of ['machine=5', 'machines=-1', 'machines=lots', 'machines', 'machines=5;contracts_per_machine=2']) {
      expect(() => parseQuotaSettings(bad), bad).toThrow(/CORE_QUOTAS must be "off" or comma-separated "name=<count>"/);
    }
    expect(() => loadConfig({ CORE_QUOTAS: 'nope=1' })).toThrow(/CORE_QUOTAS/);
    expect(loadConfig({ CORE_QUOTAS: 'off' }).quotas).toEqual(NO_QUOTAS);
  });
});

describe('CORE_LOGIN_MODE and CORE_SSO_REDIRECTS', () => {
  it('defaults to proving the address with a one-time code; e-mail alone is an explicit opt-in', () => {
    expect(loadConfig({}).loginMode).toBe('code');
    expect(loadConfig({ CORE_LOGIN_MODE: 'email' }).loginMode).toBe('email');
  });

  it('reads redirect origins and refuses anything but bare http(s) origins', () => {
    expect(loadConfig({ CORE_SSO_REDIRECTS: 'https://app.example.org, http://localhost:5173' }).ssoRedirectOrigins).toEqual([
      'https://app.example.org',
      'http://localhost:5173',
    ]);
    for (const bad of ['https://app.example.org/after', 'app.example.org', 'javascript:alert(1)']) {
      expect(() => loadConfig({ CORE_SSO_REDIRECTS: bad }), bad).toThrow(/CORE_SSO_REDIRECTS/);
    }
  });
});
