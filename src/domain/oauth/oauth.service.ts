import { randomToken } from '../../lib/hash.js';
import type { Clock } from '../../lib/clock.js';
import type { Caller } from '../identity/caller.js';
import { hashKey } from '../identity/keys.js';
import type { ClientMetadataDocument } from './cimd/client-metadata-document.js';
import { createOAuthClients, type OAuthClient, type RegistrationInput } from './oauth-clients.js';
import { OAuthError } from './oauth-error.js';
import { redirectAllowed } from './redirect-match.js';
import type { ConsentRecord, GranterRecord, GrantRecord } from './oauth-records.js';
import type { OAuthRepository } from './oauth-repository.js';
import { narrower, parseScopeParam, scopeCovers, type OAuthScope } from './oauth-scopes.js';
import { ACCESS_PREFIX, CODE_PREFIX, hashSecret, looksLikeSecret, newSecret, PKCE_VALUE } from './oauth-tokens.js';
import { createTokenExchange, type TokenResponse } from './token-exchange.js';

export const CONSENT_TTL_MS = 10 * 60_000;
export const MAX_PENDING_CONSENTS = 1000;
export const CODE_TTL_MS = 60_000;
export const ACCESS_TTL_MS = 3600_000;
export const REFRESH_TTL_MS = 30 * 24 * 3600_000;

/** The query of `GET /authorize` (RFC 6749 §4.1.1, RFC 7636, RFC 8707), as strings or absent. */
export type AuthorizeParams = Partial<
  Record<'response_type' | 'client_id' | 'redirect_uri' | 'code_challenge' | 'code_challenge_method' | 'state' | 'scope' | 'resource', string>
>;

/** What the consent page shows: who asks, where the answer goes, for what. */
export interface ConsentView {
  consent_id: string;
  client_id: string;
  client_name: string | null;
  redirect_uri: string;
  redirect_host: string;
  scope: OAuthScope;
  source: OAuthClient['source'];
}

/** The credential a person signs in with on the consent page: a key they hold, or their session. */
export type GranterCredential = { kind: 'key'; raw: string } | { kind: 'session'; token: string };

export interface OAuthService {
  /** The issuer and the two resources tokens may be bound to (RFC 8707): the MCP endpoint and the whole API. */
  resources(): { issuer: string; mcp: string; api: string };
  register: (input: RegistrationInput) => ReturnType<ReturnType<typeof createOAuthClients>['register']>;
  /** Checks an authorization request and keeps it for the consent page (10 minutes, at most 1,000 pending). */
  startAuthorization(params: AuthorizeParams): Promise<ConsentView>;
  consent(consentId: string): Promise<ConsentView>;
  /** The person's yes: a code for the client, on a grant no wider than the credential they signed in with. */
  approve(consentId: string, credential: GranterCredential, scope: OAuthScope): Promise<{ redirect_to: string }>;
  deny(consentId: string): Promise<{ redirect_to: string }>;
  /** `POST /token`: authorization_code and refresh_token grants. */
  token(params: Record<string, string | undefined>): Promise<TokenResponse>;
  /** RFC 7009: revokes the grant of an access or refresh token of this client; unknown tokens are not an error. */
  revoke(params: Record<string, string | undefined>): Promise<void>;
  /** The caller an `oat_` token stands for, or undefined when it is unknown, expired or revoked, or its granter is gone. */
  resolveAccessToken(raw: string): Promise<Caller | undefined>;
  /** Whether the grant behind an OAuth caller still holds (re-checked where credentials are re-checked). */
  grantLive(caller: Caller): Promise<boolean>;
}

export interface OAuthDeps {
  repo: OAuthRepository;
  clock: Clock;
  issuer: () => string;
  fetchClientDocument: (url: string) => Promise<ClientMetadataDocument>;
  resolveKey(raw: string): Promise<Caller | undefined>;
  resolveKeyHash(hash: string): Promise<Caller | undefined>;
  resolveSession(token: string): Promise<Caller | undefined>;
  /** Told after a grant is revoked, so open streams of its tokens end at once (this process's). */
  onGrantRevoked?: (grantId: string) => void;
}

/** The most a credential may grant: a machine key its own scope; a user key or a proven session everything. */
export function grantableScope(caller: Caller): OAuthScope | undefined {
  if (caller.uid === null || caller.oauth) return undefined;
  if (caller.credential === 'session') return caller.proven ? 'admin' : undefined;
  if (caller.credential === 'machine-key') return caller.scope ?? 'read';
  return caller.credential === 'user-key' ? 'admin' : undefined;
}

export function createOAuthService(deps: OAuthDeps): OAuthService {
  const { clock } = deps;
  const told = deps.onGrantRevoked;
  const repo: OAuthRepository = told
    ? {
        ...deps.repo,
        async revokeGrant(grantId, nowMs, reason) {
          await deps.repo.revokeGrant(grantId, nowMs, reason);
          told(grantId);
        },
      }
    : deps.repo;
  const clients = createOAuthClients({ ...deps, repo });
  const resources = () => {
    const issuer = deps.issuer();
    return { issuer, mcp: `${issuer}/api/mcp`, api: issuer };
  };
  const resourceAllowed = (value: string) => {
    const { mcp, api } = resources();
    return value === mcp || value === api || value === `${api}/`;
  };

  const view = (record: ConsentRecord, source: OAuthClient['source']): ConsentView => ({
    consent_id: record.consent_id,
    client_id: record.client_id,
    client_name: record.client_name,
    redirect_uri: record.redirect_uri,
    redirect_host: URL.parse(record.redirect_uri)?.host || record.redirect_uri.slice(0, 100),
    scope: record.scope,
    source,
  });

  /** The caller a grant's granter stands for now, or undefined once it expired or was revoked. */
  async function granterNow(granter: GranterRecord): Promise<Caller | undefined> {
    if (granter.kind === 'key') return deps.resolveKeyHash(granter.key_hash);
    if (granter.expires_ms <= clock.now()) return undefined;
    return { uid: granter.uid, credential: 'session', proven: true, expiresAtMs: granter.expires_ms };
  }

  async function liveGrant(grantId: string): Promise<{ grant: GrantRecord; granter: Caller } | undefined> {
    const grant = await repo.grant(grantId);
    if (!grant || grant.revoked_ms !== null) return undefined;
    const granter = await granterNow(grant.granter);
    return granter && granter.uid === grant.uid ? { grant, granter } : undefined;
  }

  async function taken(consentId: string): Promise<ConsentRecord> {
    const record = consentId.length <= 64 ? await repo.takeConsent(consentId) : undefined;
    if (!record || record.expires_ms <= clock.now()) {
      throw new OAuthError(
        'invalid_request',
        'This authorization request is unknown, was already answered or expired (10 minutes); start again from the client',
      );
    }
    return record;
  }

  const redirectWith = (record: ConsentRecord, params: Record<string, string>) => {
    const url = new URL(record.redirect_uri);
    for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
    if (record.state !== null) url.searchParams.set('state', record.state);
    return url.href;
  };

  const exchange = createTokenExchange({ repo, clock, liveGrant, resourceAllowed, ttl: { access: ACCESS_TTL_MS, refresh: REFRESH_TTL_MS } });

  return {
    resources,
    register: (input) => clients.register(input),

    async startAuthorization(p) {
      if (!p.client_id) throw new OAuthError('invalid_request', 'client_id is required');
      const client = await clients.resolve(p.client_id);
      const redirectUri = p.redirect_uri ?? (client.redirect_uris.length === 1 ? client.redirect_uris[0] : undefined);
      if (!redirectUri) throw new OAuthError('invalid_request', 'redirect_uri is required (the client lists more than one)');
      if (!redirectAllowed(client.redirect_uris, redirectUri)) {
        throw new OAuthError('invalid_request', `redirect_uri "${redirectUri.slice(0, 200)}" is not one of the client's registered redirect URIs`);
      }
      // From here on the client and its redirect URI are verified: refusals go back to the client.
      const back = { uri: redirectUri, state: p.state };
      if (p.response_type !== 'code') throw new OAuthError('unsupported_response_type', 'response_type must be "code"', back);
      if (!p.code_challenge || !PKCE_VALUE.test(p.code_challenge)) {
        throw new OAuthError('invalid_request', 'PKCE is required: send code_challenge (43 to 128 characters) with code_challenge_method=S256', back);
      }
      if (p.code_challenge_method !== 'S256') throw new OAuthError('invalid_request', 'code_challenge_method must be S256 (plain is not accepted)', back);
      const resource = p.resource ?? resources().api;
      if (!resourceAllowed(resource)) {
        throw new OAuthError(
          'invalid_target',
          `resource must be this server (${resources().mcp} or ${resources().api}); tokens for other servers are not issued here`,
          back,
        );
      }
      const parsed = parseScopeParam(p.scope);
      if ('unknown' in parsed) throw new OAuthError('invalid_scope', `unknown scope "${parsed.unknown.slice(0, 50)}"; scopes are read, write and admin`, back);
      if (p.state !== undefined && p.state.length > 1024) throw new OAuthError('invalid_request', 'state is longer than 1024 characters', back);
      const now = clock.now();
      if ((await repo.liveConsentCount(now)) >= MAX_PENDING_CONSENTS) {
        throw new OAuthError('temporarily_unavailable', 'Too many authorization requests are waiting for consent; try again in a few minutes', back);
      }
      const record: ConsentRecord = {
        consent_id: randomToken(32),
        client_id: client.client_id,
        client_name: client.client_name,
        redirect_uri: redirectUri,
        state: p.state ?? null,
        code_challenge: p.code_challenge,
        resource,
        scope: parsed.scope ?? 'write',
        expires_ms: now + CONSENT_TTL_MS,
      };
      await repo.insertConsent(record);
      return view(record, client.source);
    },

    async consent(consentId) {
      const record = consentId.length <= 64 ? await repo.consent(consentId) : undefined;
      if (!record || record.expires_ms <= clock.now()) {
        throw new OAuthError(
          'invalid_request',
          'This authorization request is unknown, was already answered or expired (10 minutes); start again from the client',
        );
      }
      return view(record, record.client_id.startsWith('https://') ? 'metadata-document' : 'registration');
    },

    async approve(consentId, credential, scope) {
      const caller = credential.kind === 'key' ? await deps.resolveKey(credential.raw) : await deps.resolveSession(credential.token);
      const most = caller && grantableScope(caller);
      if (!caller || !most) {
        throw new OAuthError(
          'access_denied',
          credential.kind === 'key'
            ? 'The key is not known to this server, or was revoked or expired'
            : 'Sign in first: the session is missing, expired or unproven (an e-mail address alone)',
        );
      }
      if (!scopeCovers(most, scope)) throw new OAuthError('invalid_scope', `This credential can grant at most "${most}"; choose a narrower scope`);
      const record = await taken(consentId);
      const granted = narrower(scope, record.scope);
      const now = clock.now();
      const granter: GranterRecord =
        credential.kind === 'key'
          ? { kind: 'key', key_hash: hashKey(credential.raw) }
          : { kind: 'session', uid: caller.uid!, expires_ms: caller.expiresAtMs ?? now };
      const grant: GrantRecord = {
        grant_id: `grant_${randomToken(24)}`,
        client_id: record.client_id,
        uid: caller.uid!,
        granter,
        scope: granted,
        resource: record.resource,
        created_ms: now,
        revoked_ms: null,
        revoked_reason: null,
        live_until_ms: now + CODE_TTL_MS,
      };
      await repo.insertGrant(grant);
      const code = newSecret(CODE_PREFIX);
      await repo.insertCode({
        code_hash: hashSecret(code),
        grant_id: grant.grant_id,
        client_id: record.client_id,
        redirect_uri: record.redirect_uri,
        code_challenge: record.code_challenge,
        expires_ms: now + CODE_TTL_MS,
        used_ms: null,
      });
      return { redirect_to: redirectWith(record, { code, iss: resources().issuer }) };
    },

    async deny(consentId) {
      const record = await taken(consentId);
      return { redirect_to: redirectWith(record, { error: 'access_denied', error_description: 'The person declined the request', iss: resources().issuer }) };
    },

    token: (params) => exchange.token(params),
    revoke: (params) => exchange.revoke(params),

    async resolveAccessToken(raw) {
      if (!looksLikeSecret(raw, ACCESS_PREFIX)) return undefined;
      const token = await repo.token(hashSecret(raw));
      if (!token || token.kind !== 'access' || token.expires_ms <= clock.now()) return undefined;
      const live = await liveGrant(token.grant_id);
      if (!live) return undefined;
      const expiresAtMs = Math.min(token.expires_ms, live.granter.expiresAtMs ?? Infinity);
      return { ...live.granter, oauth: { scope: token.scope, grantId: token.grant_id, clientId: token.client_id }, expiresAtMs };
    },

    async grantLive(caller) {
      if (!caller.oauth) return true;
      return (await liveGrant(caller.oauth.grantId)) !== undefined;
    },
  };
}
