import { describe, expect, it } from 'vitest';
import { looksLikeJwt, sessionCookieFrom, sessionSetCookie } from '../../../src/domain/sessions/session-credentials.js';

describe('session credentials', () => {
  it('finds the session cookie among others and ignores look-alike names', () => {
    expect(sessionCookieFrom(undefined)).toBeUndefined();
    expect(sessionCookieFrom('theme=dark')).toBeUndefined();
    expect(sessionCookieFrom('theme=dark; core_session=abc.def.ghi; lang=en')).toBe('abc.def.ghi');
    expect(sessionCookieFrom('xcore_session=nope')).toBeUndefined();
    expect(sessionCookieFrom('core_session=')).toBeUndefined();
  });

  it('writes an HttpOnly, SameSite=Lax cookie, Secure only over https', () => {
    expect(sessionSetCookie('t', 60, false)).toBe('core_session=t; Path=/; Max-Age=60; HttpOnly; SameSite=Lax');
    expect(sessionSetCookie('t', 60, true)).toMatch(/; Secure$/);
  });

  it('tells a JWT from a key without parsing it', () => {
    expect(looksLikeJwt('eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJ1In0.c2ln')).toBe(true);
    expect(looksLikeJwt('core_abcdefghijklmnopqrstuvwxyz234567abcdefgh')).toBe(false);
    expect(looksLikeJwt('eyJ.only-two')).toBe(false);
    expect(looksLikeJwt('eyJa.b.c d')).toBe(false);
  });
});
