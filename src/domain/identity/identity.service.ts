import type { Clock } from '../../lib/clock.js';
import type { Store } from '../../storage/port.js';
import type { Caller } from '../../registry/types.js';
import { hashKey, looksLikeKey, newKeyId, newRawKey, newUid } from './keys.js';

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
  created_at: string;
  expires_at?: string | null;
  revoked_at?: string | null;
}

export interface UserRecord {
  uid: string;
  created_at: string;
  created_tick: number;
}

export interface IssuedKey {
  key: string;
  record: KeyRecord;
}

export interface IdentityService {
  /** Creates a new identity and its first key. */
  mintDemoKey(label?: string): Promise<{ key: string; uid: string; key_id: string; created_at: string }>;
  /** Issues a key bound to a machine for `uid` (the raw value is returned once). */
  issueMachineKey(input: Omit<KeyRecord, 'key_id' | 'hash' | 'created_at'>): Promise<IssuedKey>;
  /** The caller a raw key stands for, or undefined when it is unknown, revoked or expired. */
  resolveKey(raw: string): Promise<Caller | undefined>;
}

export const KEYS = 'keys';
export const USERS = 'users';

export function createIdentityService(deps: { store: Store; clock: Clock }): IdentityService {
  const { store, clock } = deps;

  const issue = async (fields: Omit<KeyRecord, 'key_id' | 'hash' | 'created_at'>): Promise<IssuedKey> => {
    const key = newRawKey();
    const record: KeyRecord = {
      ...fields,
      key_id: newKeyId(),
      hash: hashKey(key),
      created_at: new Date(clock.now()).toISOString(),
    };
    await store.docs.insert(KEYS, record.hash, record);
    return { key, record };
  };

  return {
    async mintDemoKey(label) {
      const uid = newUid();
      const now = clock.now();
      const user: UserRecord = { uid, created_at: new Date(now).toISOString(), created_tick: clock.tick() };
      await store.docs.insert(USERS, uid, user);
      const { key, record } = await issue({ uid, kind: 'user', ...(label ? { name: label } : {}) });
      return { key, uid, key_id: record.key_id, created_at: record.created_at };
    },

    issueMachineKey: issue,

    async resolveKey(raw) {
      if (!looksLikeKey(raw)) return undefined;
      const record = await store.docs.get<KeyRecord>(KEYS, hashKey(raw));
      if (!record || record.revoked_at) return undefined;
      if (record.expires_at && Date.parse(record.expires_at) <= clock.now()) return undefined;
      const caller: Caller = {
        uid: record.uid,
        credential: record.kind === 'user' ? 'user-key' : 'machine-key',
        keyId: record.key_id,
      };
      if (record.machine) caller.machine = record.machine;
      if (record.scope) caller.scope = record.scope;
      return caller;
    },
  };
}
