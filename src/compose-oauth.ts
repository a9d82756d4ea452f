import type { Config } from './config.js';
import type { Clock } from './lib/clock.js';
import type { EventBus } from './domain/events.js';
import type { StorageDeps } from './compose-repositories.js';
import type { QuotasService } from './domain/quotas/quotas.service.js';
import type { SessionsService } from './domain/sessions/sessions.service.js';
import { createIdentityService, type IdentityService } from './domain/identity/identity.service.js';
import { createOAuthService, type OAuthService } from './domain/oauth/oauth.service.js';
import { createClientMetadataFetcher } from './domain/oauth/cimd/client-metadata-fetcher.js';
import { createGrantRevocations } from './domain/oauth/grant-revocations.js';

/**
 * Identity and the OAuth service, wired together: a token stands for the key or session that granted
 * it (OAuth reads identity), and identity's `credentialLive` re-checks the grant behind a token (identity
 * asks OAuth). Sessions are built later by the composition root: reached only when a call comes.
 */
export function createIdentityAndOAuth(deps: {
  storage: StorageDeps;
  clock: Clock;
  bus: EventBus;
  quotas: QuotasService;
  config: Config;
  sessions: () => SessionsService;
}): {
  identity: IdentityService;
  oauth: OAuthService;
} {
  const { storage, clock, quotas, config } = deps;
  let oauth: OAuthService | undefined;
  const identity = createIdentityService({ ...storage, clock, quotas, oauthGrantLive: (caller) => oauth!.grantLive(caller) });
  const fetcher = createClientMetadataFetcher({
    ...(config.oauthCimdTestTrust ? { testTrust: config.oauthCimdTestTrust } : {}),
    userAgent: `core-server/${config.version} (OAuth client metadata fetcher)`,
  });
  const revocations = createGrantRevocations(storage.pubsub, deps.bus);
  oauth = createOAuthService({
    repo: storage.oauthRecords,
    clock,
    issuer: () => deps.sessions().baseUrl(),
    fetchClientDocument: (url) => fetcher.fetchClient(url),
    resolveKey: (raw) => identity.resolveKey(raw),
    resolveKeyHash: (hash) => identity.resolveKeyHash(hash),
    resolveSession: (token) => deps.sessions().resolve(token),
    onGrantRevoked: (grantId) => revocations.revoked(grantId),
  });
  return { identity, oauth };
}
