import type { Store } from '../../storage/port.js';
import type { CodeRecord, ConsentRecord, GrantRecord, RegisteredClientRecord, TokenRecord } from './oauth-records.js';

const CLIENTS = 'oauth-clients';
const CONSENTS = 'oauth-consents';
const CODES = 'oauth-codes';
const GRANTS = 'oauth-grants';
const TOKENS = 'oauth-tokens';

export interface OAuthRepository {
  insertClient(record: RegisteredClientRecord): Promise<void>;
  client(clientId: string): Promise<RegisteredClientRecord | undefined>;
  /** Live registrations; expired ones are deleted first (the collection is capped, so listing it is bounded). */
  liveClientCount(nowMs: number): Promise<number>;

  insertConsent(record: ConsentRecord): Promise<void>;
  consent(consentId: string): Promise<ConsentRecord | undefined>;
  /** Removes the consent request and returns it; of two concurrent takes at most one gets it. */
  takeConsent(consentId: string): Promise<ConsentRecord | undefined>;
  liveConsentCount(nowMs: number): Promise<number>;

  insertCode(record: CodeRecord): Promise<void>;
  /** Marks the code used; `first` is false when it was used before (a replay). Undefined when unknown. */
  useCode(codeHash: string, nowMs: number): Promise<{ record: CodeRecord; first: boolean } | undefined>;

  insertGrant(record: GrantRecord): Promise<void>;
  grant(grantId: string): Promise<GrantRecord | undefined>;
  /** Keeps the grant at least until `untilMs` (a token issued under it expires then). */
  extendGrant(grantId: string, untilMs: number): Promise<void>;
  /** Revokes the grant (once: the first reason is kept). */
  revokeGrant(grantId: string, nowMs: number, reason: string): Promise<void>;

  insertToken(record: TokenRecord): Promise<void>;
  token(tokenHash: string): Promise<TokenRecord | undefined>;
  /** Marks a refresh token used; `first` false on a replay. */
  useToken(tokenHash: string, nowMs: number): Promise<{ record: TokenRecord; first: boolean } | undefined>;
  /**
   * Deletes up to `limit` each of the codes, the tokens and the grants that expired at or before `nowMs`
   * (a grant once the last code or token issued under it has), soonest-expired first.
   */
  sweepExpired(nowMs: number, limit: number): Promise<void>;
}

/** The one owner of the `oauth-*` collections. */
export function createOAuthRepository(store: Store): OAuthRepository {
  const { docs } = store;

  /** Marks `used_ms` once; the flag is set inside the serialized update, so of two concurrent uses one is first. */
  async function markUsed<T extends { used_ms: number | null }>(collection: string, id: string, nowMs: number) {
    let first = false;
    const stored = await docs.update<T>(collection, id, (current) => {
      first = false;
      if (!current || current.used_ms !== null) return undefined;
      first = true;
      return { ...current, used_ms: nowMs };
    });
    return stored ? { record: stored, first } : undefined;
  }

  async function liveCount<T extends { expires_ms: number }>(collection: string, idOf: (r: T) => string, nowMs: number): Promise<number> {
    const all = await docs.list<T>(collection);
    let live = 0;
    for (const record of all) {
      if (record.expires_ms > nowMs) live++;
      else await docs.delete(collection, idOf(record));
    }
    return live;
  }

  return {
    insertClient: (record) => docs.insert(CLIENTS, record.client_id, record),
    client: (clientId) => docs.get<RegisteredClientRecord>(CLIENTS, clientId),
    liveClientCount: (nowMs) => liveCount<RegisteredClientRecord>(CLIENTS, (r) => r.client_id, nowMs),

    insertConsent: (record) => docs.insert(CONSENTS, record.consent_id, record),
    consent: (consentId) => docs.get<ConsentRecord>(CONSENTS, consentId),
    async takeConsent(consentId) {
      const record = await docs.get<ConsentRecord>(CONSENTS, consentId);
      return record && (await docs.delete(CONSENTS, consentId)) ? record : undefined;
    },
    liveConsentCount: (nowMs) => liveCount<ConsentRecord>(CONSENTS, (r) => r.consent_id, nowMs),

    insertCode: (record) => docs.insert(CODES, record.code_hash, record),
    useCode: (codeHash, nowMs) => markUsed<CodeRecord>(CODES, codeHash, nowMs),

    insertGrant: (record) => docs.insert(GRANTS, record.grant_id, record),
    grant: (grantId) => docs.get<GrantRecord>(GRANTS, grantId),
    async revokeGrant(grantId, nowMs, reason) {
      await docs.update<GrantRecord>(GRANTS, grantId, (current) =>
        current && current.revoked_ms === null ? { ...current, revoked_ms: nowMs, revoked_reason: reason } : undefined,
      );
    },

    async extendGrant(grantId, untilMs) {
      await docs.update<GrantRecord>(GRANTS, grantId, (current) =>
        current && (current.live_until_ms ?? -Infinity) < untilMs ? { ...current, live_until_ms: untilMs } : undefined,
      );
    },

    insertToken: (record) => docs.insert(TOKENS, record.token_hash, record),
    token: (tokenHash) => docs.get<TokenRecord>(TOKENS, tokenHash),
    useToken: (tokenHash, nowMs) => markUsed<TokenRecord>(TOKENS, tokenHash, nowMs),

    async sweepExpired(nowMs, limit) {
      // Walked in expiry order, so a sweep reads only what it deletes (and one record more).
      for (const [collection, field, idOf] of [
        [CODES, 'expires_ms', (r: Record<string, unknown>) => r.code_hash],
        [TOKENS, 'expires_ms', (r: Record<string, unknown>) => r.token_hash],
        [GRANTS, 'live_until_ms', (r: Record<string, unknown>) => r.grant_id],
      ] as const) {
        const page = await docs.find<Record<string, unknown>>(collection, {}, { orderBy: { field }, limit });
        for (const record of page.items) {
          if ((record[field] as number) > nowMs) break;
          await docs.delete(collection, idOf(record) as string);
        }
      }
    },
  };
}
