import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { API_VERSION, loadConfig } from '../../../src/config.js';
import { SETTINGS } from '../../../src/config-settings.js';

const read = (file: string) => readFileSync(new URL(`../../../${file}`, import.meta.url), 'utf8');

describe('the settings list', () => {
  it('names exactly the variables loadConfig reads, and the README table names each', () => {
    const source = read('src/config.ts');
    const readByConfig = new Set([...source.matchAll(/\benv\.([A-Z][A-Z0-9_]+)/g)].map((m) => m[1]!));
    // The ones the per-user folders derive from are the platform's, not ours.
    for (const platform of ['XDG_DATA_HOME', 'XDG_STATE_HOME', 'HOME']) readByConfig.delete(platform);
    expect([...readByConfig].sort()).toEqual(SETTINGS.map((s) => s.name).sort());
    const readme = read('README.md');
    for (const { name } of SETTINGS) expect(readme, name).toContain(`\`${name}\``);
  });

  it('has one version: package.json, --version, serverInfo and OpenAPI', () => {
    expect((JSON.parse(read('package.json')) as { version: string }).version).toBe(API_VERSION);
    expect(loadConfig({}).version).toBe(API_VERSION);
  });
});

describe('DATABASE_URL', () => {
  it.each([
    ['not a url', '"not a url"'],
    ['mysql://root@127.0.0.1/db', 'a mysql:// URL'],
  ])('refuses %s before anything connects, naming the variable', (value, shown) => {
    expect(() => loadConfig({ DATABASE_URL: value })).toThrow(
      `DATABASE_URL must be a PostgreSQL URL such as postgres://user@127.0.0.1:5432/core (only PostgreSQL is supported), got ${shown}`,
    );
  });

  it('never repeats a password it refuses', () => {
    expect(() => loadConfig({ DATABASE_URL: 'mysql://root:hunter2@db/x' })).toThrow(/^(?!.*hunter2)/);
    expect(() => loadConfig({ DATABASE_URL: 'user:hunter2@db' })).toThrow(/^(?!.*hunter2).*DATABASE_URL/);
  });

  it('takes postgres:// and postgresql:// URLs', () => {
    expect(loadConfig({ DATABASE_URL: 'postgresql://u@h:5432/d' }).databaseUrl).toBe('postgresql://u@h:5432/d');
  });
});

describe('CORE_OAUTH_CIMD_TEST_TRUST (test only)', () => {
  it('is off unless set, and names itself when the file is missing or holds no certificate', () => {
    expect(loadConfig({}).oauthCimdTestTrust).toBeUndefined();
    expect(() => loadConfig({ CORE_OAUTH_CIMD_TEST_TRUST: '/no/such/ca.pem' })).toThrow(/^CORE_OAUTH_CIMD_TEST_TRUST \(test only\).*ENOENT/);
    expect(() => loadConfig({ CORE_OAUTH_CIMD_TEST_TRUST: new URL('../../../package.json', import.meta.url).pathname })).toThrow(/BEGIN CERTIFICATE/);
  });
});
