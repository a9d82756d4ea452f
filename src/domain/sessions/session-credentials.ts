/** Name of the portal session cookie. */
export const SESSION_COOKIE = 'core_session';

/** Name of the cookie that binds an SSO round trip to the browser that started it. */
export const SSO_BINDING_COOKIE = 'core_sso';

const NEEDLE = `${SESSION_COOKIE}=`;

/**
 * The value of cookie `name` in a `Cookie` header, or undefined. Looks for the name first, so requests
 * without that cookie pay one substring search.
 */
export function cookieFrom(header: string | undefined, name: string): string | undefined {
  return valueOf(header, `${name}=`);
}

function valueOf(header: string | undefined, needle: string): string | undefined {
  if (!header || !header.includes(needle)) return undefined;
  for (const part of header.split(';')) {
    const trimmed = part.trim();
    if (trimmed.startsWith(needle)) {
      const value = trimmed.slice(needle.length);
      return value === '' ? undefined : value;
    }
  }
  return undefined;
}

/** The session token in a `Cookie` header, or undefined (every request asks: the needle is made once). */
export function sessionCookieFrom(header: string | undefined): string | undefined {
  return valueOf(header, NEEDLE);
}

/**
 * A `Set-Cookie` value for the SSO binding: HttpOnly, SameSite=Lax (sent on the top-level navigation to
 * the callback), sent only to the callback, living as long as the authorization code. `maxAgeSeconds`
 * 0 clears it.
 */
export function ssoBindingSetCookie(value: string, maxAgeSeconds: number, secure: boolean): string {
  return `${SSO_BINDING_COOKIE}=${value}; Path=/api/auth/callback; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
}

/**
 * A `Set-Cookie` value for a session: HttpOnly (page scripts never read it), SameSite=Lax (not sent
 * on cross-site POSTs), Path=/, expiring with the token, Secure when the node is served over https.
 */
export function sessionSetCookie(token: string, maxAgeSeconds: number, secure: boolean): string {
  return `${NEEDLE}${token}; Path=/; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
}

/** Whether a bearer value can be a JWT at all: three base64url parts, the header starting `eyJ`. */
export function looksLikeJwt(raw: string): boolean {
  return raw.startsWith('eyJ') && raw.length <= 4096 && /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(raw);
}
