import type { Store } from '../../storage/port.js';

/** An authorization code waiting for its exchange, id = SHA-256 of the code. */
export interface SsoCodeRecord {
  code_hash: string;
  uid: string;
  state: string;
  redirect_uri: string;
  /** PKCE S256 challenge, when the client sent one. */
  code_challenge: string | null;
  /** SHA-256 of the binding cookie set in the browser that started the round trip. */
  binding_hash: string;
  expires_ms: number;
}

/** Codes live a minute and are deleted when exchanged or swept. */
const SSO_CODES = 'sso-codes';

export interface SsoCodeRepository {
  insert(record: SsoCodeRecord): Promise<void>;
  /**
   * Removes the code and returns it, or undefined when it is unknown. Of two concurrent takes of one
   * code (in any process sharing the store) at most one gets the record.
   */
  take(codeHash: string): Promise<SsoCodeRecord | undefined>;
  /** Deletes every code that expired at or before `nowMs`. */
  sweep(nowMs: number): Promise<void>;
}

/** The one owner of the `sso-codes` collection. */
export function createSsoCodeRepository(store: Store): SsoCodeRepository {
  return {
    insert: (record) => store.docs.insert(SSO_CODES, record.code_hash, record),

    async take(codeHash) {
      const record = await store.docs.get<SsoCodeRecord>(SSO_CODES, codeHash);
      // Only the take whose delete removed the record gets it.
      return record && (await store.docs.delete(SSO_CODES, codeHash)) ? record : undefined;
    },

    async sweep(nowMs) {
      // Listed whole: the collection is small and bounded, as every code is swept a minute after it was
      // issued (sweeps run on each issue), so it never holds more than a minute of issued codes.
      const stale = await store.docs.list<SsoCodeRecord>(SSO_CODES, (r) => r.expires_ms <= nowMs);
      for (const record of stale) await store.docs.delete(SSO_CODES, record.code_hash);
    },
  };
}
