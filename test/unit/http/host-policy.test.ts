import { describe, expect, it } from 'vitest';
import { createHostPolicy, isLoopbackAddress } from '../../../src/transports/http/host-policy.js';

describe('the host policy', () => {
  it('knows which listening addresses are loopback', () => {
    for (const a of ['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]']) expect(isLoopbackAddress(a), a).toBe(true);
    for (const a of ['0.0.0.0', '::', '10.0.0.5', '192.168.1.2', 'example.org']) expect(isLoopbackAddress(a), a).toBe(false);
  });

  it('on a loopback address serves loopback names, the public host and the allow-list only', () => {
    const policy = createHostPolicy({ bindHost: '127.0.0.1', publicUrl: 'https://core.example.org', allowedHosts: ['lan-box:8080'] });
    for (const h of ['localhost:8787', '127.0.0.1:8787', '[::1]:8787', 'localhost', 'core.example.org', 'Core.Example.Org:443', 'lan-box:8080', undefined]) {
      expect(policy.hostAllowed(h), String(h)).toBe(true);
    }
    for (const h of ['evil.example', 'evil.example:8787', 'lan-box:8081', 'lan-box', '127.0.0.1.evil.example', 'localhost.evil.example:8787', '']) {
      expect(policy.hostAllowed(h), h).toBe(false);
    }
    expect(policy.names).toEqual(['localhost', '127.0.0.1', '[::1]', 'lan-box:8080', 'core.example.org']);
  });

  it('remembers no stale answer when the Host changes between requests', () => {
    const policy = createHostPolicy({ bindHost: '127.0.0.1' });
    expect(policy.hostAllowed('localhost:1')).toBe(true);
    expect(policy.hostAllowed('evil.example:1')).toBe(false);
    expect(policy.hostAllowed('localhost:1')).toBe(true);
  });

  it('on another address serves every name unless an allow-list is set', () => {
    expect(createHostPolicy({ bindHost: '0.0.0.0' }).hostAllowed('anything.example')).toBe(true);
    expect(createHostPolicy({ bindHost: '0.0.0.0', publicUrl: 'https://core.example.org' }).hostAllowed('anything.example')).toBe(true);
    const listed = createHostPolicy({ bindHost: '0.0.0.0', allowedHosts: ['core.example.org'] });
    expect(listed.hostAllowed('core.example.org')).toBe(true);
    expect(listed.hostAllowed('localhost:8787')).toBe(true);
    expect(listed.hostAllowed('anything.example')).toBe(false);
  });

  it('lets the same host, loopback pages, the public origin and allow-listed hosts write, and nothing else', () => {
    const policy = createHostPolicy({ bindHost: '127.0.0.1', publicUrl: 'https://core.example.org/base', allowedHosts: ['lan-box'] });
    expect(policy.originAllowed('http://127.0.0.1:8787', '127.0.0.1:8787')).toBe(true);
    expect(policy.originAllowed('http://localhost:6274', '127.0.0.1:8787')).toBe(true);
    expect(policy.originAllowed('https://core.example.org', '127.0.0.1:8787')).toBe(true);
    expect(policy.originAllowed('http://lan-box:8080', '127.0.0.1:8787')).toBe(true);
    expect(policy.originAllowed('http://core.example.org', '127.0.0.1:8787')).toBe(false);
    expect(policy.originAllowed('https://attacker.example', '127.0.0.1:8787')).toBe(false);
    expect(policy.originAllowed('http://localhost:6274', 'core.example.org')).toBe(false);
    expect(policy.originAllowed('null', '127.0.0.1:8787')).toBe(false);
    expect(policy.originAllowed('not a url', undefined)).toBe(false);
  });
});
