import { randomToken } from '../../lib/hash.js';
import type { Clock } from '../../lib/clock.js';
import type { ClientMetadataDocument } from './cimd/client-metadata-document.js';
import { redirectUriProblem } from './cimd/client-metadata-document.js';
import { ClientMetadataError } from './cimd/client-metadata-error.js';
import { OAuthError } from './oauth-error.js';
import type { OAuthRepository } from './oauth-repository.js';

/** A client as the authorization server uses it, whether from its metadata document or a registration. */
export interface OAuthClient {
  client_id: string;
  client_name: string | null;
  redirect_uris: string[];
  source: 'metadata-document' | 'registration';
}

export const MAX_REGISTERED_CLIENTS = 1000;
export const REGISTRATION_TTL_MS = 24 * 3600_000;

/** What RFC 7591 registration accepts here: public clients only, redirect URIs by the rules metadata documents meet. */
export interface RegistrationInput {
  redirect_uris?: unknown;
  client_name?: unknown;
  grant_types?: unknown;
  response_types?: unknown;
  token_endpoint_auth_method?: unknown;
}

export interface OAuthClients {
  /** The client named by `client_id`: an https URL is fetched as its metadata document; anything else is a registration. */
  resolve(clientId: string): Promise<OAuthClient>;
  /** RFC 7591: registers a public client for a day (capped at MAX_REGISTERED_CLIENTS live registrations). */
  register(input: RegistrationInput): Promise<OAuthClient & { client_id_issued_at: number; token_endpoint_auth_method: 'none' }>;
}

export function createOAuthClients(deps: {
  repo: OAuthRepository;
  clock: Clock;
  /** The Client ID Metadata Document fetcher (`cimd/`), throwing `ClientMetadataError`. */
  fetchClientDocument: (url: string) => Promise<ClientMetadataDocument>;
}): OAuthClients {
  const { repo, clock } = deps;

  async function fromDocument(clientId: string): Promise<OAuthClient> {
    let doc: ClientMetadataDocument;
    try {
      doc = await deps.fetchClientDocument(clientId);
    } catch (err) {
      if (!(err instanceof ClientMetadataError)) throw err;
      if (err.code === 'BUSY') throw new OAuthError('temporarily_unavailable', err.message);
      throw new OAuthError('invalid_client', `The client's metadata document cannot be used (${err.code}): ${err.message}`);
    }
    if (doc.token_endpoint_auth_method !== 'none') {
      throw new OAuthError(
        'invalid_client',
        `token_endpoint_auth_method "${doc.token_endpoint_auth_method}" is not supported here; this server takes public clients ("none") with PKCE`,
      );
    }
    return { client_id: clientId, client_name: doc.client_name ?? null, redirect_uris: doc.redirect_uris, source: 'metadata-document' };
  }

  return {
    async resolve(clientId) {
      if (clientId.startsWith('https://')) return fromDocument(clientId);
      const record = clientId.length <= 64 ? await repo.client(clientId) : undefined;
      if (!record || record.expires_ms <= clock.now()) {
        throw new OAuthError(
          'invalid_client',
          `The client_id "${clientId.slice(0, 100)}" is not registered here (registrations last 24 hours): register again, or use a client metadata document URL`,
        );
      }
      return { client_id: record.client_id, client_name: record.client_name, redirect_uris: record.redirect_uris, source: 'registration' };
    },

    async register(input) {
      const uris = input.redirect_uris;
      if (!Array.isArray(uris) || uris.length === 0 || uris.length > 20 || !uris.every((u): u is string => typeof u === 'string' && u.length <= 2048)) {
        throw new OAuthError('invalid_redirect_uri', 'redirect_uris must be an array of 1 to 20 URIs');
      }
      for (const uri of uris) {
        const problem = redirectUriProblem(uri);
        if (problem) throw new OAuthError('invalid_redirect_uri', `redirect URI "${uri.slice(0, 200)}" ${problem}`);
      }
      const method = input.token_endpoint_auth_method ?? 'none';
      if (method !== 'none') {
        throw new OAuthError(
          'invalid_client_metadata',
          'token_endpoint_auth_method must be "none": this server registers public clients, which prove themselves with PKCE',
        );
      }
      for (const [field, needed] of [
        ['grant_types', 'authorization_code'],
        ['response_types', 'code'],
      ] as const) {
        const value = input[field];
        if (value !== undefined && !(Array.isArray(value) && value.includes(needed))) {
          throw new OAuthError('invalid_client_metadata', `${field} must include "${needed}"`);
        }
      }
      const name = input.client_name;
      // eslint-disable-next-line no-control-regex
      if (name !== undefined && (typeof name !== 'string' || name.length === 0 || name.length > 200 || /[\u0000-\u001f\u007f]/.test(name))) {
        throw new OAuthError('invalid_client_metadata', 'client_name must be 1 to 200 characters without control characters');
      }
      const now = clock.now();
      if ((await repo.liveClientCount(now)) >= MAX_REGISTERED_CLIENTS) {
        throw new OAuthError(
          'temporarily_unavailable',
          'Too many clients registered in the last 24 hours; try again later, or use a client metadata document URL as client_id',
        );
      }
      const record = {
        client_id: `dcr_${randomToken(32)}`,
        client_name: typeof name === 'string' ? name : null,
        redirect_uris: uris,
        created_ms: now,
        expires_ms: now + REGISTRATION_TTL_MS,
      };
      await repo.insertClient(record);
      return {
        client_id: record.client_id,
        client_name: record.client_name,
        redirect_uris: record.redirect_uris,
        source: 'registration',
        client_id_issued_at: Math.floor(now / 1000),
        token_endpoint_auth_method: 'none',
      };
    },
  };
}
