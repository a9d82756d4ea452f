import { z } from 'zod';
import { defineAction, defineTool } from '../../src/registry/types.js';
import { IsoDate, NoInput, Uid } from '../../src/registry/common-schemas.js';
const State = z.string().min(8).max(512).describe('Opaque value the client chose; echoed back to detect forgery');
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
    description: "Portal sessions and the node's OpenID discovery documents. Log in by e-mail (a session cookie, never key material), run the authorization-code round trip with sso_start and callback, and read the JWKS or OpenID configuration to verify session tokens. Actions: login, sso_start, callback, jwks, openid_configuration.",
    actions: [
        defineAction({
            id: 'auth.login',
            action: 'login',
            method: 'POST',
            path: '/api/auth/login',
            auth: 'public',
            area: 'identity',
            summary: 'Starts a portal session for an e-mail address (set as a signed cookie, never key material); when the node requires a one-time code, the first call reports code_required.',
            input: z.object({
                email: z.email().max(254).describe('E-mail address of the account'),
                one_time_code: z
                    .string()
                    .min(4)
                    .max(32)
                    .optional()
                    .describe('One-time code from the server log, only when the node requires login codes'),
            }),
            output: z.object({
                ok: z.literal(true),
                session_issued: z.boolean(),
                code_required: z.boolean().describe('True when a one-time code must be sent in a second call'),
                uid: Uid.nullable(),
                expires_at: IsoDate.nullable(),
            }),
        }),
        defineAction({
            id: 'auth.startSso',
            action: 'sso_start',
            method: 'GET',
            path: '/api/auth/sso-start',
            auth: 'public',
            area: 'identity',
            summary: "Starts the authorization-code round trip and returns the node's authorization URL to send the user to.",
            input: z.object({
                redirect_uri: z.url({ protocol: /^https?$/ }).max(2048).describe('Where the callback sends the user afterwards'),
                state: State,
            }),
            output: z.object({
                ok: z.literal(true),
                redirect_to: z.string().describe('Authorization URL to visit'),
                state: z.string(),
                expires_at: IsoDate.describe('The code exchange must happen before this time'),
            }),
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
            }),
            output: z.object({
                ok: z.literal(true),
                uid: Uid,
                expires_at: IsoDate.describe('When the session cookie expires'),
                redirect_to: z.string().describe('The redirect_uri given to sso_start'),
            }),
        }),
        defineAction({
            id: 'auth.getJwks',
            action: 'jwks',
            method: 'GET',
            path: '/api/.well-known/jwks.json',
            auth: 'public',
            area: 'identity',
            summary: "Returns the node's public signing keys as a JSON Web Key Set, to verify session JWTs.",
            input: NoInput,
            output: z.object({ ok: z.literal(true), keys: z.array(Jwk) }),
            idempotent: true,
        }),
        defineAction({
            id: 'auth.getOpenidConfiguration',
            action: 'openid_configuration',
            method: 'GET',
            path: '/api/.well-known/openid-configuration',
            auth: 'public',
            area: 'identity',
            summary: "Returns the node's OpenID Connect discovery document: issuer, endpoints, JWKS URI and supported algorithms.",
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
            }),
            idempotent: true,
        }),
    ],
});
//# sourceMappingURL=auth.tool.js.map