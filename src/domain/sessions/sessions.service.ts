import { errors } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import type { Logger } from '../../log.js';
import type { Caller } from '../identity/caller.js';
import { emailHash, type IdentityService } from '../identity/identity.service.js';
import type { NodeKeys } from '../identity/node-keys.js';
import { createLoginCodes } from './login-codes.js';
import { sessionSetCookie, ssoBindingSetCookie } from './session-credentials.js';
import { redirectTarget } from './redirect-target.js';
import { SESSION_TTL_SECONDS, signSession, verifySession, type SessionMethod } from './session-token.js';
import { createSsoCodes, SSO_CODE_TTL_MS, type SsoRefusal } from './sso-codes.js';
import type { SsoCodeRepository } from './sso-code-repository.js';
import type { LoginCodeRepository } from './login-code-repository.js';

/** A session ready to hand to the browser: only the cookie carries the token, never a response body. */
export interface IssuedSession {
  uid: string;
  expires_at: string;
  set_cookie: string;
}

/** `uid` is null for an unproven session: the answer never ties an address to its uid before proof. */
export type LoginResult = { code_required: true; session: null } | { code_required: false; session: IssuedSession; uid: string | null };

export interface SsoStartInput {
  redirect_uri: string;
  state: string;
  code_challenge?: string | undefined;
}

/** How a person signs in: a link by email, or a one-time code the node writes to its log. */
export type LoginMode = 'email' | 'code';

export interface SessionsService {
  readonly mode: LoginMode;
  /** Public base URL of the node: the issuer of sessions and the root of discovery URLs. */
  baseUrl(): string;
  /** Used when `CORE_PUBLIC_URL` is unset: the URL the HTTP server listens on, known only once it listens. */
  useListenUrl(url: string): void;
  /**
   * `auth/login`: in `code` mode a first call writes a code to the server log and the second, with the
   * code, opens a proven session; in `email` mode the address alone opens an unproven one.
   */
  login(input: { email: string; one_time_code?: string | undefined }): Promise<LoginResult>;
  /**
   * `sso-start`: a signed-in user (user key or proven session) gets a one-time authorization code bound
   * to state, to a redirect target on this node (or `CORE_SSO_REDIRECTS`) and to the starting browser,
   * which keeps `binding_cookie`.
   */
  startSso(caller: Caller, input: SsoStartInput): Promise<{ redirect_to: string; state: string; expires_at: string; binding_cookie: string }>;
  /**
   * `callback`: exchanges a code (single use, short-lived, PKCE when started with a challenge) for a
   * session, only in the browser that started it (`binding`: its SSO cookie); `clear_binding` removes that cookie.
   */
  callback(input: { code: string; state: string; code_verifier?: string | undefined; binding: string | undefined }): Promise<{
    session: IssuedSession;
    redirect_to: string;
    clear_binding: string;
  }>;
  /** The caller a session token stands for, or undefined when it is not a live session of this node. */
  resolve(token: string): Promise<Caller | undefined>;
  jwks(): { keys: PublicJwk[] };
  discovery(): OpenIdConfiguration;
}

/** A published verification key. */
export interface PublicJwk {
  kty: string;
  kid: string;
  [field: string]: string;
}

/** The OpenID Connect discovery document of the node. */
export interface OpenIdConfiguration {
  issuer: string;
  authorization_endpoint: string;
  jwks_uri: string;
  response_types_supported: string[];
  subject_types_supported: string[];
  id_token_signing_alg_values_supported: string[];
  scopes_supported: string[];
  claims_supported: string[];
  code_challenge_methods_supported: string[];
}

const REFUSAL: Record<SsoRefusal, string> = {
  unknown_code: 'This authorization code is unknown or was already used; start again with GET /api/auth/sso-start',
  expired: 'This authorization code expired; start again with GET /api/auth/sso-start',
  other_browser:
    'This authorization code was started in another browser (no matching core_sso cookie); the code is now void: start again with GET /api/auth/sso-start from this browser',
  state_mismatch: 'The state does not match the one given to sso-start; the code is now void, start again',
  verifier_required: 'This code was started with a PKCE code_challenge: send its code_verifier; the code is now void, start again',
  verifier_mismatch: 'The code_verifier does not match the code_challenge; the code is now void, start again',
};

export function createSessionsService(deps: {
  loginCodeRecords: LoginCodeRepository;
  ssoCodeRecords: SsoCodeRepository;
  clock: Clock;
  nodeKeys: NodeKeys;
  identity: IdentityService;
  log: Logger;
  mode: LoginMode;
  publicUrl: string | undefined;
  /** Base URL used until the server reports where it listens. */
  defaultUrl: string;
  /** Origins besides the node's own that `sso-start` may redirect to (`CORE_SSO_REDIRECTS`). */
  redirectOrigins?: readonly string[];
}): SessionsService {
  const { clock, nodeKeys, identity, log } = deps;
  const loginCodes = createLoginCodes(deps.loginCodeRecords);
  const ssoCodes = createSsoCodes(deps.ssoCodeRecords);
  let listenUrl: string | undefined;
  const baseUrl = () => deps.publicUrl ?? listenUrl ?? deps.defaultUrl;

  const secure = () => baseUrl().startsWith('https:');

  async function issue(uid: string, method: SessionMethod): Promise<IssuedSession> {
    const issuer = baseUrl();
    // An e-mail address alone proves nothing; a code, or a round trip only a proven caller can start, does.
    const proven = method !== 'email';
    const { token, claims } = await signSession(nodeKeys, { uid, method, proven, issuer, nowMs: clock.now() });
    log.info('session issued', { uid, method, proven, sid: claims.sid });
    return {
      uid,
      expires_at: new Date(claims.exp * 1000).toISOString(),
      set_cookie: sessionSetCookie(token, SESSION_TTL_SECONDS, secure()),
    };
  }

  return {
    mode: deps.mode,
    baseUrl,
    useListenUrl(url) {
      listenUrl = url;
    },

    async login({ email, one_time_code }) {
      if (deps.mode === 'email') return { code_required: false, session: await issue((await identity.userForEmail(email)).uid, 'email'), uid: null };
      const id = emailHash(email);
      if (one_time_code === undefined) {
        const { code, expires_ms } = await loginCodes.issue(id, clock.now());
        // The server log is the delivery channel of this mode: whoever reads it can hand the code over.
        log.warn('one-time login code', { email, code, expires_at: new Date(expires_ms).toISOString() });
        return { code_required: true, session: null };
      }
      if (!(await loginCodes.redeem(id, one_time_code, clock.now()))) {
        throw errors.unprocessable('This login code is wrong, used or expired; call again without one_time_code to get a new one');
      }
      const session = await issue((await identity.userForEmail(email)).uid, 'otp');
      return { code_required: false, session, uid: session.uid };
    },

    async startSso(caller, input) {
      if (caller.uid === null) {
        throw errors.unauthenticated(caller);
      }
      if ((caller.credential !== 'user-key' && caller.credential !== 'session') || !(await identity.isUser(caller.uid))) {
        throw errors.forbidden('sso-start signs in a person: use your user key or a portal session, not a machine or developer key');
      }
      const redirect = redirectTarget(input.redirect_uri, baseUrl(), deps.redirectOrigins ?? []);
      const { code, binding, expires_ms } = await ssoCodes.issue(
        { uid: caller.uid, state: input.state, redirect_uri: redirect, code_challenge: input.code_challenge ?? null },
        clock.now(),
      );
      const query = new URLSearchParams({ code, state: input.state });
      return {
        redirect_to: `${baseUrl()}/api/auth/callback?${query.toString()}`,
        state: input.state,
        expires_at: new Date(expires_ms).toISOString(),
        binding_cookie: ssoBindingSetCookie(binding, Math.ceil(SSO_CODE_TTL_MS / 1000), secure()),
      };
    },

    async callback(input) {
      const grant = await ssoCodes.exchange(input, clock.now());
      if (typeof grant === 'string') {
        // Another browser's code is a request this browser should never have made: a plain 400.
        if (grant === 'other_browser') throw errors.validation(REFUSAL[grant], { reason: grant });
        throw errors.unprocessable(REFUSAL[grant], { reason: grant });
      }
      return { session: await issue(grant.uid, 'sso'), redirect_to: grant.redirect_uri, clear_binding: ssoBindingSetCookie('', 0, secure()) };
    },

    async resolve(token) {
      const claims = await verifySession(nodeKeys, token, clock.now());
      return claims ? { uid: claims.uid, credential: 'session', proven: claims.proven, expiresAtMs: claims.exp * 1000 } : undefined;
    },

    jwks: () => ({ keys: [{ ...nodeKeys.publicJwk, kty: nodeKeys.publicJwk.kty!, kid: nodeKeys.keyId }] }),

    discovery() {
      const base = baseUrl();
      return {
        issuer: base,
        authorization_endpoint: `${base}/api/auth/sso-start`,
        jwks_uri: `${base}/api/.well-known/jwks.json`,
        response_types_supported: ['code'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['EdDSA'],
        scopes_supported: ['openid'],
        claims_supported: ['iss', 'sub', 'aud', 'exp', 'iat', 'sid', 'amr'],
        code_challenge_methods_supported: ['S256'],
      };
    },
  };
}
