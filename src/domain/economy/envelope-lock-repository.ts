import type { Store } from '../../storage/port.js';

/** Why an envelope cannot move: bonded to a contribution seat, or staked on a community vote. */
export interface EnvelopeLock {
  token_id: string;
  machine_slug: string;
  owner_uid: string;
  value: number;
  kind: 'bond' | 'vote';
  /** Seat id for a bond, proposal id for a vote. */
  ref: string;
  tick: number;
}

const ENVELOPE_LOCKS = 'envelope-locks';

/**
 * Envelope locks, one document per locked envelope (keyed by its token id), present only while the
 * envelope is bonded or staked: the only module that names their collection.
 */
export interface EnvelopeLockRepository {
  byTokenId(tokenId: string): Promise<EnvelopeLock | undefined>;
  /** The locks on one machine's envelopes. */
  bySlug(slug: string): Promise<EnvelopeLock[]>;
  /** Takes the lock; fails with `DuplicateKeyError` when the envelope is locked already. */
  insert(lock: EnvelopeLock): Promise<void>;
  delete(tokenId: string): Promise<boolean>;
  /** Compare-and-delete: removes the lock only if `predicate` holds for it as stored at that moment. */
  deleteIf(tokenId: string, predicate: (held: EnvelopeLock) => boolean): Promise<boolean>;
}

export function createEnvelopeLockRepository(store: Store): EnvelopeLockRepository {
  return {
    byTokenId: (tokenId) => store.docs.get<EnvelopeLock>(ENVELOPE_LOCKS, tokenId),
    bySlug: async (slug) => (await store.docs.find<EnvelopeLock>(ENVELOPE_LOCKS, { machine_slug: slug })).items,
    insert: (lock) => store.docs.insert(ENVELOPE_LOCKS, lock.token_id, lock),
    delete: (tokenId) => store.docs.delete(ENVELOPE_LOCKS, tokenId),
    deleteIf: (tokenId, predicate) => store.docs.deleteIf<EnvelopeLock>(ENVELOPE_LOCKS, tokenId, predicate),
  };
}
