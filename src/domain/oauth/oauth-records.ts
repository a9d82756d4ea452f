import type { OAuthScope } from './oauth-scopes.js';

/** A client registered by RFC 7591 dynamic registration (the fallback of clients without a metadata document). */
export interface RegisteredClientRecord {
  client_id: string;
  client_name: string | null;
  redirect_uris: string[];
  created_ms: number;
  /** Unused registrations go after a day; each use does not extend it (a client registers again). */
  expires_ms: number;
}

/** An authorization request waiting for the person's decision on the consent page; id = its random id. */
export interface ConsentRecord {
  consent_id: string;
  client_id: string;
  client_name: string | null;
  redirect_uri: string;
  state: string | null;
  code_challenge: string;
  resource: string;
  /** The highest scope the client asked for. */
  scope: OAuthScope;
  expires_ms: number;
}

/**
 * What granted a grant, kept so each use re-resolves it: a key (its hash, as the key store keeps it) or a
 * proven session (whose expiry bounds the grant, as sessions cannot be revoked one by one).
 */
export type GranterRecord = { kind: 'key'; key_hash: string } | { kind: 'session'; uid: string; expires_ms: number };

/** One person's consent to one client: every code and token issued from it dies with it. */
export interface GrantRecord {
  grant_id: string;
  client_id: string;
  uid: string;
  granter: GranterRecord;
  scope: OAuthScope;
  resource: string;
  created_ms: number;
  revoked_ms: number | null;
  /** Why it was revoked: `revoked` (RFC 7009), `code_reused`, `refresh_reused`. */
  revoked_reason: string | null;
  /**
   * When the last code or token issued under it expires: past it, nothing can use the grant and the
   * sweep deletes it. Absent on grants stored before the field existed, which are kept.
   */
  live_until_ms?: number;
}

/** An authorization code, id = its hash; kept after use (`used_ms`) so a second use is seen and revokes the grant. */
export interface CodeRecord {
  code_hash: string;
  grant_id: string;
  client_id: string;
  redirect_uri: string;
  code_challenge: string;
  expires_ms: number;
  used_ms: number | null;
}

/** An access or refresh token, id = its hash. A refresh token is used once (`used_ms`); reuse revokes its grant. */
export interface TokenRecord {
  token_hash: string;
  kind: 'access' | 'refresh';
  grant_id: string;
  client_id: string;
  scope: OAuthScope;
  expires_ms: number;
  used_ms: number | null;
}
