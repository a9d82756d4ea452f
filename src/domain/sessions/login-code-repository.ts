import type { Store } from '../../storage/port.js';

/** A pending one-time login code, id = the e-mail hash; only the code's hash is kept. */
export interface LoginCodeRecord {
  email_hash: string;
  code_hash: string;
  issued_ms: number;
  expires_ms: number;
  attempts: number;
}

/** At most one record per e-mail address that asked for a code. */
const LOGIN_CODES = 'login-codes';

export interface LoginCodeRepository {
  /**
   * Read-modify-write of the address's code without lost updates: `fn` sees the stored record (or
   * undefined) and returns the next one, or undefined to leave it as it is. Concurrent updates of one
   * address are serialized across every process sharing the store.
   */
  update(emailHash: string, fn: (current: LoginCodeRecord | undefined) => LoginCodeRecord | undefined): Promise<void>;
}

/** The one owner of the `login-codes` collection. */
export function createLoginCodeRepository(store: Store): LoginCodeRepository {
  return {
    async update(emailHash, fn) {
      await store.docs.update<LoginCodeRecord>(LOGIN_CODES, emailHash, fn);
    },
  };
}
