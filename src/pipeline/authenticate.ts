import type { Services } from '../domain/services.js';
import { ANONYMOUS, MALFORMED_BEARER, UNKNOWN_BEARER, type Caller } from '../domain/identity/caller.js';
import { KEY_PREFIX } from '../domain/identity/keys.js';
import { readTokenKind } from '../domain/chain/read-tokens.js';
import { looksLikeJwt } from '../domain/sessions/session-credentials.js';
import { ACCESS_PREFIX } from '../domain/oauth/oauth-tokens.js';

/** Credentials as a transport found them; the pipeline alone decides what they are worth. */
export interface Credentials {
  /** Raw bearer token, without the `Bearer ` prefix. */
  bearer?: string;
  shareToken?: string;
  /** Portal session token from the session cookie. */
  session?: string;
}

/**
 * Parses an `Authorization` header value: the token of `Bearer <token>`; undefined for no header or a
 * `Bearer` with no token (what a client config renders from an unset `${CORE_API_KEY}`); '' (refused)
 * for anything else.
 */
export function bearerFrom(header: string | undefined): string | undefined {
  if (!header || /^Bearer\s*$/i.test(header)) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1] : header.trim() === '' ? undefined : '';
}

/**
 * Resolves credentials to a caller. No credential gives the anonymous caller. A bearer value that is
 * present but unknown, revoked or expired gives the anonymous caller marked `unknownCredential`: the
 * pipeline refuses it every operation that needs an identity (401, saying the key is not known here)
 * and answers public ones with a warning, so an agent with a stale key can still mint a new one.
 * A bearer value may be a key or a session JWT; a session cookie counts only when no bearer value is sent.
 */
export async function authenticate(services: Services, creds: Credentials): Promise<Caller> {
  if (creds.bearer === undefined) {
    // A cookie is sent by the browser unasked: a stale one leaves the caller anonymous instead of refusing.
    const base = (creds.session !== undefined && (await services.sessions.resolve(creds.session))) || ANONYMOUS;
    return creds.shareToken ? { ...base, shareToken: creds.shareToken } : base;
  }
  // A malformed Authorization header counts as a key this server does not know: public operations answer
  // (with a warning saying what is wrong), the others refuse with 401 saying the same.
  if (creds.bearer === '') return creds.shareToken ? { ...MALFORMED_BEARER, shareToken: creds.shareToken } : MALFORMED_BEARER;
  // A read token in the key's place is named as such (the refusal says where it goes), never looked up as a key.
  const readToken = readTokenKind(creds.bearer);
  if (readToken) return { ...UNKNOWN_BEARER, readTokenAsKey: readToken, ...(creds.shareToken ? { shareToken: creds.shareToken } : {}) };
  // Keys take the unchanged path; a JWT is parsed only when the bearer value is not a key.
  // An OAuth access token stands for the credential that granted it, narrowed to its scope.
  const caller = creds.bearer.startsWith(ACCESS_PREFIX)
    ? await services.oauth.resolveAccessToken(creds.bearer)
    : !creds.bearer.startsWith(KEY_PREFIX) && looksLikeJwt(creds.bearer)
      ? await services.sessions.resolve(creds.bearer)
      : await services.identity.resolveKey(creds.bearer);
  const found = caller ?? UNKNOWN_BEARER;
  return creds.shareToken ? { ...found, shareToken: creds.shareToken } : found;
}
