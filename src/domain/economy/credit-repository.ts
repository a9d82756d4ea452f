import type { Store } from '../../storage/port.js';
import type { CreditAccount } from './credits-account.js';

const CREDIT_ACCOUNTS = 'credit-accounts';

/** One credit account per uid: the only module that names their collection. */
export interface CreditRepository {
  byUid(uid: string): Promise<CreditAccount | undefined>;
  /** Read-modify-write of the uid's account; `fn` may run more than once (see `DocStore.update`). */
  update(uid: string, fn: (current: CreditAccount | undefined) => CreditAccount | undefined): Promise<CreditAccount | undefined>;
}

export function createCreditRepository(store: Store): CreditRepository {
  return {
    byUid: (uid) => store.docs.get<CreditAccount>(CREDIT_ACCOUNTS, uid),
    update: (uid, fn) => store.docs.update<CreditAccount>(CREDIT_ACCOUNTS, uid, fn),
  };
}
