/** Name of the portal session cookie. */
export const SESSION_COOKIE = 'core_session';

const NEEDLE = `${SESSION_COOKIE}=`;

/**
 * The session token in a `Cookie` header, or undefined. Looks for the name first, so requests
 * without a session cookie pay one substring search.
 */
export function sessionCookieFrom(header: string | undefined): string | undefined {
  if (!header || !header.includes(NEEDLE)) return undefined;
  for (const part of header.split(';')) {
    const trimmed = part.trim();
    if (trimmed.startsWith(NEEDLE)) {
      const value = trimmed.slice(NEEDLE.length);
      return value === '' ? undefined : value;
    }
  }
  return undefined;
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
