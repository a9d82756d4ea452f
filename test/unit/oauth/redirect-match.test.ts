import { describe, expect, it } from 'vitest';
import { redirectAllowed } from '../../../src/domain/oauth/redirect-match.js';

describe('redirect URI matching', () => {
  it('takes a registered URI as it is', () => {
    expect(redirectAllowed(['https://app.example/cb'], 'https://app.example/cb')).toBe(true);
    expect(redirectAllowed(['com.example.app:/oauth'], 'com.example.app:/oauth')).toBe(true);
  });

  it('lets a loopback redirect come back on any port, the port the app got when it started listening', () => {
    expect(redirectAllowed(['http://127.0.0.1:33418/callback'], 'http://127.0.0.1:51234/callback')).toBe(true);
    expect(redirectAllowed(['http://127.0.0.1/callback'], 'http://127.0.0.1:8080/callback')).toBe(true);
    expect(redirectAllowed(['http://localhost:3000/oauth/callback'], 'http://localhost:61001/oauth/callback')).toBe(true);
    expect(redirectAllowed(['http://[::1]:9/cb?app=1'], 'http://[::1]:40000/cb?app=1')).toBe(true);
  });

  it('still holds scheme, host, path and query to what was registered', () => {
    const registered = ['http://127.0.0.1:33418/callback'];
    expect(redirectAllowed(registered, 'http://127.0.0.1:1/other')).toBe(false);
    expect(redirectAllowed(registered, 'http://127.0.0.1:1/callback?x=1')).toBe(false);
    expect(redirectAllowed(registered, 'http://localhost:33418/callback')).toBe(false);
    expect(redirectAllowed(registered, 'https://127.0.0.1:33418/callback')).toBe(false);
    expect(redirectAllowed(registered, 'http://127.0.0.1.evil.example:33418/callback')).toBe(false);
    expect(redirectAllowed(registered, 'http://user@127.0.0.1:1/callback')).toBe(false);
    expect(redirectAllowed(registered, 'http://127.0.0.1:1/callback#frag')).toBe(false);
  });

  it('gives other hosts no port freedom', () => {
    expect(redirectAllowed(['https://app.example:8443/cb'], 'https://app.example:9443/cb')).toBe(false);
    expect(redirectAllowed(['http://app.example:80/cb'], 'http://app.example:81/cb')).toBe(false);
  });
});
