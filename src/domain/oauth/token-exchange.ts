import type { Clock } from '../../lib/clock.js';
import type { Caller } from '../identity/caller.js';
import { OAuthError } from './oauth-error.js';
import type { GrantRecord } from './oauth-records.js';
import type { OAuthRepository } from './oauth-repository.js';
import { parseScopeParam, scopeCovers, scopeString, type OAuthScope } from './oauth-scopes.js';
import { ACCESS_PREFIX, CODE_PREFIX, hashSecret, looksLikeSecret, newSecret, PKCE_VALUE, REFRESH_PREFIX, s256 } from './oauth-tokens.js';

export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: string;
}

type Params = Record<string, string | undefined>;

/** The token endpoint's two grants and revocation: codes and refresh tokens are single use, and a replay revokes the grant. */
export function createTokenExchange(deps: {
  repo: OAuthRepository;
  clock: Clock;
  liveGrant(grantId: string): Promise<{ grant: GrantRecord; granter: Caller } | undefined>;
  resourceAllowed(resource: string): boolean;
  ttl: { access: number; refresh: number };
}) {
  const { repo, clock } = deps;
  let sweptAt = -Infinity;

  /** At most once a minute, on issue: expired codes and tokens leave the store, a bounded batch at a time. */
  function sweep(now: number): void {
    if (now - sweptAt < 60_000) return;
    sweptAt = now;
    repo.sweepExpired(now, 200).catch(() => undefined);
  }

  /** A token is never valid longer than the credential that granted it. */
  async function issue(grant: GrantRecord, granter: Caller, scope: OAuthScope): Promise<TokenResponse> {
    const now = clock.now();
    sweep(now);
    const cap = granter.expiresAtMs ?? Infinity;
    const access = newSecret(ACCESS_PREFIX);
    const refresh = newSecret(REFRESH_PREFIX);
    const accessExpires = Math.min(now + deps.ttl.access, cap);
    const refreshExpires = Math.min(now + deps.ttl.refresh, cap);
    const base = { grant_id: grant.grant_id, client_id: grant.client_id, scope, used_ms: null };
    // The grant outlives every token issued under it, so the sweep never takes one a token still names.
    await repo.extendGrant(grant.grant_id, Math.max(accessExpires, refreshExpires));
    await repo.insertToken({ ...base, token_hash: hashSecret(access), kind: 'access', expires_ms: accessExpires });
    await repo.insertToken({ ...base, token_hash: hashSecret(refresh), kind: 'refresh', expires_ms: refreshExpires });
    return {
      access_token: access,
      token_type: 'Bearer',
      expires_in: Math.max(1, Math.floor((accessExpires - now) / 1000)),
      refresh_token: refresh,
      scope: scopeString(scope),
    };
  }

  function checkResource(p: Params, grant: GrantRecord): void {
    if (p.resource === undefined) return;
    if (!deps.resourceAllowed(p.resource) || p.resource !== grant.resource) {
      throw new OAuthError('invalid_target', `resource "${p.resource.slice(0, 200)}" is not the resource this grant was made for (${grant.resource})`);
    }
  }

  async function live(grantId: string) {
    const found = await deps.liveGrant(grantId);
    if (!found) throw new OAuthError('invalid_grant', 'The grant was revoked, or the key or session that approved it was revoked or expired; sign in again');
    return found;
  }

  async function authorizationCode(p: Params): Promise<TokenResponse> {
    if (!p.code || !looksLikeSecret(p.code, CODE_PREFIX))
      throw new OAuthError('invalid_grant', 'code is missing or is not an authorization code of this server');
    if (!p.client_id) throw new OAuthError('invalid_request', 'client_id is required');
    const now = clock.now();
    const used = await repo.useCode(hashSecret(p.code), now);
    if (!used) throw new OAuthError('invalid_grant', 'The authorization code is unknown');
    const code = used.record;
    if (!used.first) {
      // RFC 6749 §4.1.2: a code used twice may have been stolen; what it issued is revoked.
      await repo.revokeGrant(code.grant_id, now, 'code_reused');
      throw new OAuthError('invalid_grant', 'The authorization code was already used; the tokens issued from it are now revoked');
    }
    if (code.expires_ms <= now) throw new OAuthError('invalid_grant', 'The authorization code expired (codes last 60 seconds); start again');
    if (code.client_id !== p.client_id) throw new OAuthError('invalid_grant', 'The authorization code was issued to another client');
    if (p.redirect_uri !== undefined && p.redirect_uri !== code.redirect_uri)
      throw new OAuthError('invalid_grant', 'redirect_uri differs from the one of the authorization request');
    if (!p.code_verifier || !PKCE_VALUE.test(p.code_verifier))
      throw new OAuthError('invalid_request', 'code_verifier is required (PKCE, 43 to 128 characters)');
    if (s256(p.code_verifier) !== code.code_challenge) throw new OAuthError('invalid_grant', 'code_verifier does not match the code_challenge (PKCE)');
    const { grant, granter } = await live(code.grant_id);
    checkResource(p, grant);
    return issue(grant, granter, grant.scope);
  }

  async function refreshToken(p: Params): Promise<TokenResponse> {
    if (!p.refresh_token || !looksLikeSecret(p.refresh_token, REFRESH_PREFIX))
      throw new OAuthError('invalid_grant', 'refresh_token is missing or is not a refresh token of this server');
    const now = clock.now();
    const used = await repo.useToken(hashSecret(p.refresh_token), now);
    if (!used || used.record.kind !== 'refresh') throw new OAuthError('invalid_grant', 'The refresh token is unknown');
    const token = used.record;
    if (!used.first) {
      // Rotation: a refresh token used twice means two holders; the whole family is revoked.
      await repo.revokeGrant(token.grant_id, now, 'refresh_reused');
      throw new OAuthError('invalid_grant', 'The refresh token was already used; every token of this grant is now revoked, sign in again');
    }
    if (token.expires_ms <= now) throw new OAuthError('invalid_grant', 'The refresh token expired; sign in again');
    if (p.client_id !== undefined && p.client_id !== token.client_id) throw new OAuthError('invalid_grant', 'The refresh token was issued to another client');
    const parsed = parseScopeParam(p.scope);
    if ('unknown' in parsed) throw new OAuthError('invalid_scope', `unknown scope "${parsed.unknown.slice(0, 50)}"`);
    const scope = parsed.scope ?? token.scope;
    if (!scopeCovers(token.scope, scope)) throw new OAuthError('invalid_scope', `The grant is for "${token.scope}"; a refresh cannot widen it to "${scope}"`);
    const { grant, granter } = await live(token.grant_id);
    checkResource(p, grant);
    return issue(grant, granter, scope);
  }

  return {
    async token(p: Params): Promise<TokenResponse> {
      if (p.grant_type === 'authorization_code') return authorizationCode(p);
      if (p.grant_type === 'refresh_token') return refreshToken(p);
      throw new OAuthError('unsupported_grant_type', 'grant_type must be authorization_code or refresh_token');
    },

    async revoke(p: Params): Promise<void> {
      const raw = p.token;
      if (!raw) throw new OAuthError('invalid_request', 'token is required');
      // RFC 7009 §2.2: an unknown or invalid token is answered like a revoked one.
      if (!looksLikeSecret(raw, ACCESS_PREFIX) && !looksLikeSecret(raw, REFRESH_PREFIX)) return;
      const token = await repo.token(hashSecret(raw));
      if (!token || (p.client_id !== undefined && p.client_id !== token.client_id)) return;
      await repo.revokeGrant(token.grant_id, clock.now(), 'revoked');
    },
  };
}
