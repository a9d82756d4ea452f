import type { Store } from '../../storage/port.js';

/** How far the audit recovery has checked each machine, by slug. */
const MARKS = 'audit-recovery';

/**
 * Every transition below `t` has its chain row or is being written by a live process, and the chain row
 * of every transition at or above `t` is at chain seq `tc` or later (`tc` was read before `t`). Likewise
 * `e`/`ec` for envelopes. A pair is kept whole, the one reaching further winning.
 */
export interface Mark {
  slug: string;
  t: number;
  tc: number;
  /** Tally seq the envelope of every fire at or above `t` is at or after (read before `t`). */
  te: number;
  e: number;
  ec: number;
}

/** The audit recovery's marks (see `audit-recovery.service.ts`). The only module that names them. */
export function createRecoveryMarkRepository(store: Store) {
  return {
    get: (slug: string): Promise<Mark | undefined> => store.docs.get<Mark>(MARKS, slug),
    /** Read-modify-write of one machine's mark (see `DocStore.update`). */
    update: (slug: string, fn: (current: Mark | undefined) => Mark | undefined): Promise<Mark | undefined> => store.docs.update<Mark>(MARKS, slug, fn),
  };
}

export type RecoveryMarkRepository = ReturnType<typeof createRecoveryMarkRepository>;
