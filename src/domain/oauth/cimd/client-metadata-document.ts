import { z } from 'zod';
import { ClientMetadataError } from './client-metadata-error.js';
import { LOOPBACK_HOSTS } from '../redirect-match.js';

const MAX_URI = 2048;
// eslint-disable-next-line no-control-regex
const NO_CONTROL = /^[^\u0000-\u001f\u007f]*$/;
/** Schemes a browser runs or reads locally instead of handing to an app: never a redirect target. */
const UNSAFE_SCHEMES = new Set(['javascript:', 'data:', 'file:', 'vbscript:', 'blob:', 'about:', 'filesystem:']);

/** Why a redirect URI may not be used, or undefined. OAuth 2.1: https, http only on a loopback host, or an app's own scheme. */
export function redirectUriProblem(value: string): string | undefined {
  const url = URL.parse(value);
  if (!url) return 'is not an absolute URI';
  if (url.hash !== '' || value.includes('#')) return 'must not contain a fragment';
  if (UNSAFE_SCHEMES.has(url.protocol)) return `must not use the ${url.protocol} scheme`;
  if (url.protocol === 'http:' && !LOOPBACK_HOSTS.has(url.hostname)) return 'may use http only on a loopback host (localhost, 127.0.0.1, [::1]); use https';
  return undefined;
}

const RedirectUri = z
  .string()
  .max(MAX_URI)
  .superRefine((value, ctx) => {
    const problem = redirectUriProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: `redirect URI "${value.slice(0, 200)}" ${problem}` });
  });

/** A page a person may open from the consent screen: http(s) only, so no script URL is ever rendered. */
const WebUri = z
  .string()
  .max(MAX_URI)
  .refine((value) => {
    const url = URL.parse(value);
    return url !== null && (url.protocol === 'https:' || url.protocol === 'http:');
  }, 'must be an http(s) URL');

const Text = (max: number) => z.string().min(1).max(max).regex(NO_CONTROL, 'must not contain control characters');

/**
 * A Client ID Metadata Document (draft-ietf-oauth-client-id-metadata-document, fields of RFC 7591) as this
 * server accepts it. Unknown fields are dropped. Only public clients (`none`) and `private_key_jwt` are
 * accepted: the draft forbids shared-secret methods, since a document anyone can read cannot hold a secret.
 */
export const ClientMetadataDocument = z
  .object({
    client_id: z.string().max(MAX_URI),
    redirect_uris: z.array(RedirectUri).min(1, 'redirect_uris must list at least one redirect URI').max(20),
    client_name: Text(200).optional(),
    client_uri: WebUri.optional(),
    logo_uri: WebUri.optional(),
    tos_uri: WebUri.optional(),
    policy_uri: WebUri.optional(),
    contacts: z.array(Text(320)).max(10).optional(),
    grant_types: z.array(Text(200)).min(1).max(10).default(['authorization_code']),
    response_types: z.array(Text(50)).min(1).max(5).default(['code']),
    token_endpoint_auth_method: z
      .enum(['none', 'private_key_jwt'], {
        message:
          'token_endpoint_auth_method must be "none" (a public client) or "private_key_jwt"; methods with a shared secret cannot be used with a public metadata document',
      })
      .default('none'),
    scope: Text(1000).optional(),
    software_id: Text(200).optional(),
    software_version: Text(100).optional(),
    jwks_uri: WebUri.optional(),
    jwks: z.object({ keys: z.array(z.record(z.string(), z.unknown())).max(10) }).optional(),
  })
  .superRefine((doc, ctx) => {
    if (doc.token_endpoint_auth_method === 'private_key_jwt' && !doc.jwks && !doc.jwks_uri) {
      ctx.addIssue({ code: 'custom', path: ['jwks_uri'], message: "private_key_jwt needs the client's keys: give jwks_uri or jwks" });
    }
    if (doc.jwks && doc.jwks_uri) ctx.addIssue({ code: 'custom', path: ['jwks'], message: 'give jwks_uri or jwks, not both' });
    if (!doc.grant_types.includes('authorization_code')) {
      ctx.addIssue({
        code: 'custom',
        path: ['grant_types'],
        message: 'grant_types must include "authorization_code", the only flow this server offers such a client',
      });
    }
    if (!doc.response_types.includes('code')) ctx.addIssue({ code: 'custom', path: ['response_types'], message: 'response_types must include "code"' });
  });

export type ClientMetadataDocument = z.infer<typeof ClientMetadataDocument>;

/** Fields a document must not carry at all: a document anyone can read cannot hold a secret. */
const FORBIDDEN_FIELDS = ['client_secret', 'client_secret_expires_at'] as const;

/**
 * The validated document fetched from `clientId`, or CLIENT_ID_MISMATCH / INVALID_DOCUMENT. The client_id is
 * compared first and as a plain string (the draft forbids normalising it): a document served for another
 * client is the one answer that means someone is pretending.
 */
export function checkClientMetadataDocument(json: unknown, clientId: string): ClientMetadataDocument {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new ClientMetadataError('INVALID_DOCUMENT', `the metadata document at ${clientId} must be a JSON object`);
  }
  const claimed = (json as Record<string, unknown>).client_id;
  if (claimed !== clientId) {
    const shown = typeof claimed === 'string' ? `"${claimed.slice(0, 200)}"` : claimed === undefined ? 'missing' : `a ${typeof claimed}`;
    throw new ClientMetadataError('CLIENT_ID_MISMATCH', `the document's client_id must be exactly the URL it is served at (${clientId}); it is ${shown}`);
  }
  for (const field of FORBIDDEN_FIELDS) {
    if (field in json) throw new ClientMetadataError('INVALID_DOCUMENT', `the metadata document at ${clientId} must not contain ${field}: anyone can read it`);
  }
  const parsed = ClientMetadataDocument.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues.slice(0, 5).map((issue) => `${issue.path.join('.') || 'document'}: ${issue.message}`);
    throw new ClientMetadataError('INVALID_DOCUMENT', `the metadata document at ${clientId} is not valid: ${issues.join('; ')}`);
  }
  return parsed.data;
}
