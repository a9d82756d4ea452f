import { z } from 'zod';
import { errors } from '../../src/errors.js';
import { defineAction, defineTool, type ActionContext } from '../../src/registry/types.js';
import { SSO_BINDING_COOKIE } from '../../src/domain/sessions/session-credentials.js';
import { IsoDate, NoInput, Uid } from '../../src/registry/common-schemas.js';

/** Sessions are cookies: a transport without headers (MCP, core_http) cannot hand one over. */
function deliver(ctx: ActionContext, setCookie: string): void {
  ctx.setHeader!('Set-Cookie', setCookie);
}

function needCookies(ctx: ActionContext, what: string): void {
  if (!ctx.setHeader) {
    throw errors.unprocessable(`A portal session is a cookie: call ${what} over HTTP (REST), where the answer can set it`);
  }
}

const State = z.string().min(8).max(512).describe('Opaque value echoed back to detect forgery');

/** Public signing key in JWK form; the node signs sessions with Ed25519 (OKP) but others stay readable. */
const Jwk = z.object({
  kty: z.string().describe('Key type, "OKP" for Ed25519'),
  kid: z.string(),
  alg: z.string().optional().describe('"EdDSA" for Ed25519'),
  use: z.literal('sig').optional(),
  crv: z.string().optional(),
  x: z.string().optional(),
  y: z.string().optional(),
  n: z.string().optional(),
  e: z.string().optional(),
});

export const authTool = defineTool({
  name: 'core_auth',
  toolset: 'platform',
  title: 'Sessions and OIDC discovery',
  description:
    "Portal sessions and OpenID discovery. The node's discovery documents are public. Log in by e-mail with a one-time code (a session cookie, never key material), run the authorization-code round trip with sso_start and callback, and read the JWKS or OpenID configuration to verify session tokens.",
  actions: [
    defineAction({
      id: 'auth.login',
      action: 'login',
      method: 'POST',
      path: '/api/auth/login',
      auth: 'public',
      area: 'identity',
      summary:
        'Starts a portal session for an e-mail address (set as a signed cookie, never key material): the first call reports code_required and writes a one-time code to the server log, the second sends it. A node in e-mail-only demo mode opens an unproven session at once, which cannot mint keys.',
      input: z.object({
        email: z.email().max(254),
        one_time_code: z.string().min(4).max(32).optional().describe('One-time code from the server log, on the second call'),
      }),
      output: z.object({
        ok: z.literal(true),
        session_issued: z.boolean(),
        code_required: z.boolean().describe('True when a one-time code must be sent in a second call'),
        uid: Uid.nullable().describe('The uid signed in as; null until the address is proven with its code'),
        expires_at: IsoDate.nullable(),
      }),
      handler: async (input, ctx) => {
        needCookies(ctx, 'POST /api/auth/login');
        const result = await ctx.services.sessions.login(input);
        if (!result.session) return { ok: true as const, session_issued: false, code_required: true, uid: null, expires_at: null };
        deliver(ctx, result.session.set_cookie);
        return { ok: true as const, session_issued: true, code_required: false, uid: result.uid, expires_at: result.session.expires_at };
      },
    }),
    defineAction({
      id: 'auth.startSso',
      lastingAccess: 'Starting a sign-in round trip',
      action: 'sso_start',
      method: 'GET',
      path: '/api/auth/sso-start',
      auth: 'public',
      callerRequired: true,
      area: 'identity',
      summary:
        "Starts the authorization-code round trip (user key or proven session); returns the node's authorization URL and sets a cookie binding the round trip to this browser.",
      input: z.object({
        redirect_uri: z
          .string()
          .min(1)
          .max(2048)
          .describe('Where the callback sends the user: a path on this node (/explorer/), a URL on its public origin, or one of CORE_SSO_REDIRECTS'),
        state: State,
        code_challenge: z
          .string()
          .regex(/^[A-Za-z0-9_-]{43}$/, 'a PKCE S256 challenge is 43 base64url characters')
          .optional()
          .describe('PKCE: base64url(SHA-256(code_verifier)); the callback then needs the verifier'),
        code_challenge_method: z.literal('S256').optional().describe('Only S256 is supported'),
      }),
      output: z.object({
        ok: z.literal(true),
        redirect_to: z.string().describe('Authorization URL to visit'),
        state: z.string(),
        expires_at: IsoDate.describe('The code exchange must happen before this time'),
      }),
      handler: async ({ redirect_uri, state, code_challenge }, ctx) => {
        needCookies(ctx, 'GET /api/auth/sso-start');
        const { binding_cookie, ...started } = await ctx.services.sessions.startSso(ctx.caller, { redirect_uri, state, code_challenge });
        deliver(ctx, binding_cookie);
        return { ok: true as const, ...started };
      },
    }),
    defineAction({
      id: 'auth.handleCallback',
      action: 'callback',
      method: 'GET',
      path: '/api/auth/callback',
      auth: 'public',
      area: 'identity',
      summary: 'Completes the round trip: exchanges a one-time authorization code for a session and returns where to go next.',
      input: z.object({
        code: z.string().min(8).max(512).describe('Authorization code from the node'),
        state: State,
        code_verifier: z
          .string()
          .regex(/^[A-Za-z0-9._~-]{43,128}$/, 'a PKCE code_verifier is 43-128 characters of A-Z, a-z, 0-9 and -._~')
          .optional()
          .describe('PKCE verifier, if sso_start had a code_challenge'),
      }),
      output: z.object({
        ok: z.literal(true),
        uid: Uid,
        expires_at: IsoDate.describe('When the session cookie expires'),
        redirect_to: z.string().describe('The redirect_uri given to sso_start'),
      }),
      handler: async (input, ctx) => {
        needCookies(ctx, 'GET /api/auth/callback');
        const { session, redirect_to, clear_binding } = await ctx.services.sessions.callback({ ...input, binding: ctx.cookie?.(SSO_BINDING_COOKIE) });
        deliver(ctx, session.set_cookie);
        deliver(ctx, clear_binding);
        return { ok: true as const, uid: session.uid, expires_at: session.expires_at, redirect_to };
      },
    }),
    defineAction({
      id: 'auth.getJwks',
      action: 'jwks',
      method: 'GET',
      path: '/api/.well-known/jwks.json',
      auth: 'public',
      area: 'identity',
      summary: "Returns the node's JSON Web Key Set; to verify session JWTs.",
      input: NoInput,
      output: z.object({ ok: z.literal(true), keys: z.array(Jwk) }),
      idempotent: true,
      handler: async (_input, { services }) => ({ ok: true as const, ...services.sessions.jwks() }),
    }),
    defineAction({
      id: 'auth.getOpenidConfiguration',
      action: 'openid_configuration',
      method: 'GET',
      path: '/api/.well-known/openid-configuration',
      auth: 'public',
      area: 'identity',
      summary: 'Returns the OpenID Connect discovery document: issuer, endpoints, JWKS URI and supported algorithms.',
      input: NoInput,
      output: z.object({
        ok: z.literal(true),
        issuer: z.string(),
        authorization_endpoint: z.string(),
        token_endpoint: z.string().optional(),
        jwks_uri: z.string(),
        response_types_supported: z.array(z.string()),
        subject_types_supported: z.array(z.string()),
        id_token_signing_alg_values_supported: z.array(z.string()),
        scopes_supported: z.array(z.string()).optional(),
        claims_supported: z.array(z.string()).optional(),
        code_challenge_methods_supported: z.array(z.string()).optional(),
      }),
      idempotent: true,
      handler: async (_input, { services }) => ({ ok: true as const, ...services.sessions.discovery() }),
    }),
  ],
});
