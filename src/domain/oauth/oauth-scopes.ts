/**
 * OAuth scopes, each mapped onto the access levels operations already declare (their HTTP method and
 * the machine role they need), so a token's scope is checked by the rules every credential meets.
 * - `read`: GET operations only (what `CORE_READ_ONLY` allows);
 * - `write`: any method, on operations needing at most the operator role;
 * - `admin`: everything the granting credential may do.
 */
export const OAUTH_SCOPES = ['read', 'write', 'admin'] as const;
export type OAuthScope = (typeof OAUTH_SCOPES)[number];

const RANK: Record<OAuthScope, number> = { read: 0, write: 1, admin: 2 };

export function isOAuthScope(value: string): value is OAuthScope {
  return (OAUTH_SCOPES as readonly string[]).includes(value);
}

/** The lower of two scopes. */
export function narrower(a: OAuthScope, b: OAuthScope): OAuthScope {
  return RANK[a] <= RANK[b] ? a : b;
}

export function scopeCovers(held: OAuthScope, wanted: OAuthScope): boolean {
  return RANK[held] >= RANK[wanted];
}

/**
 * The highest scope named in a space-separated `scope` parameter, or undefined for none; unknown
 * names are an error (RFC 6749 invalid_scope). Scopes are nested, so the highest names them all.
 */
export function parseScopeParam(value: string | undefined): { scope: OAuthScope | undefined } | { unknown: string } {
  const names = (value ?? '').split(' ').filter((s) => s !== '');
  let scope: OAuthScope | undefined;
  for (const name of names) {
    if (!isOAuthScope(name)) return { unknown: name };
    scope = scope === undefined ? name : RANK[name] > RANK[scope] ? name : scope;
  }
  return { scope };
}

/** The scope string a token response names: the nested scopes up to `scope`. */
export function scopeString(scope: OAuthScope): string {
  return OAUTH_SCOPES.slice(0, RANK[scope] + 1).join(' ');
}

/** The scope an operation needs: from its method and the machine role it declares. */
export function scopeNeeded(method: string, role: string | undefined): OAuthScope {
  if (role === 'owner' || role === 'admin') return 'admin';
  return method === 'GET' ? 'read' : 'write';
}
