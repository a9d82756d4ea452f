import type { Store } from '../../storage/port.js';

/** A stored key: the raw value is never kept, only its SHA-256. */
export interface KeyRecord {
  key_id: string;
  hash: string;
  uid: string;
  kind: 'user' | 'machine' | 'developer';
  /** Slug of the machine a machine or developer key belongs to. */
  machine?: string;
  scope?: 'read' | 'write' | 'admin';
  name?: string;
  rate_limit_tier?: string | null;
  /** First characters of the raw key, enough for a person to recognise it; absent on older keys. */
  key_prefix?: string;
  /** Who minted the key (a developer key's creator). */
  created_by?: string | null;
  created_at: string;
  expires_at?: string | null;
  revoked_at?: string | null;
  /** Last time the key authenticated a request, recorded at most once a minute. */
  last_used_at?: string | null;
}

/** Keys of every kind, one record per key, id = the SHA-256 of the raw key. */
const KEYS = 'keys';

export interface KeyRepository {
  /** Stores a new key; fails with `DuplicateKeyError` when a key with the same hash exists. */
  insert(record: KeyRecord): Promise<void>;
  /** The key whose raw value hashes to `hash`, revoked or not. */
  byHash(hash: string): Promise<KeyRecord | undefined>;
  /** A key of the machine by id, revoked or not. */
  byMachineKeyId(slug: string, keyId: string): Promise<KeyRecord | undefined>;
  /**
   * Every key bound to the machine (of the kinds given, or all), revoked or not, oldest first. Answered
   * from the `machine` index; a machine holds few keys (developer keys are capped by `api_keys_per_machine`).
   */
  byMachine(slug: string, kind?: KeyRecord['kind']): Promise<KeyRecord[]>;
  /** Sets `last_used_at`; does nothing when the key is gone. */
  touch(hash: string, at: string): Promise<void>;
  /** Sets `revoked_at` unless the key is already revoked or gone; returns whether this call revoked it. */
  revoke(hash: string, at: string): Promise<boolean>;
}

/** The one owner of the `keys` collection. */
export function createKeyRepository(store: Store): KeyRepository {
  return {
    insert: (record) => store.docs.insert(KEYS, record.hash, record),

    byHash: (hash) => store.docs.get<KeyRecord>(KEYS, hash),

    async byMachineKeyId(slug, keyId) {
      return (await store.docs.find<KeyRecord>(KEYS, { machine: slug, key_id: keyId }, { limit: 1 })).items[0];
    },

    async byMachine(slug, kind) {
      return (await store.docs.find<KeyRecord>(KEYS, kind === undefined ? { machine: slug } : { machine: slug, kind })).items;
    },

    async touch(hash, at) {
      await store.docs.update<KeyRecord>(KEYS, hash, (current) => (current ? { ...current, last_used_at: at } : undefined));
    },

    async revoke(hash, at) {
      let revoked = false;
      await store.docs.update<KeyRecord>(KEYS, hash, (current) => {
        if (!current || current.revoked_at) return undefined;
        revoked = true;
        return { ...current, revoked_at: at };
      });
      return revoked;
    },
  };
}
