import type { Clock } from '../../lib/clock.js';
import type { Store } from '../../storage/port.js';
import type { Caller } from './caller.js';
import { hashKey, looksLikeKey, newKeyId, newRawKey, newUid } from './keys.js';
import { sha256Hex } from '../../lib/hash.js';
import { DuplicateKeyError } from '../../storage/port.js';
import type { QuotasService } from '../quotas/quotas.service.js';

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

export interface UserRecord {
  uid: string;
  created_at: string;
  created_tick: number;
}

export interface IssuedKey {
  key: string;
  record: KeyRecord;
}

export interface DeveloperKeyInput {
  machine: string;
  name: string;
  scope: 'read' | 'write' | 'admin';
  rate_limit_tier?: string | null;
  expires_at?: string | null;
  created_by: string | null;
}

export interface IdentityService {
  /** Creates a new identity and its first key; QUOTA_EXCEEDED past `demo_keys_per_address` an hour from one client address. */
  mintDemoKey(label?: string, clientIp?: string): Promise<{ key: string; uid: string; key_id: string; created_at: string }>;
  /** Issues a key bound to a machine for `uid` (the raw value is returned once). */
  issueMachineKey(input: Omit<KeyRecord, 'key_id' | 'hash' | 'created_at'>): Promise<IssuedKey>;
  /**
   * Issues a developer key bound to one machine. It acts as its own identity, `key:<key_id>`, whose
   * role on that machine is its scope's (read: viewer, write: operator, admin: admin) and which has
   * no authority anywhere else, whatever its creator's.
   */
  issueDeveloperKey(input: DeveloperKeyInput): Promise<IssuedKey>;
  /** The machine's keys that are neither revoked nor expired, oldest first (records hold no raw value). */
  machineKeys(slug: string): Promise<KeyRecord[]>;
  /** A key of the machine by id, revoked or not. */
  machineKey(slug: string, keyId: string): Promise<KeyRecord | undefined>;
  /** Revokes a key of the machine; false when it was already revoked. Effective on the next request. */
  revokeKey(slug: string, keyId: string): Promise<boolean>;
  /** Whether `uid` names a user of this node (developer-key identities are not users). */
  isUser(uid: string): Promise<boolean>;
  /** The caller a raw key stands for, or undefined when it is unknown, revoked or expired. */
  resolveKey(raw: string): Promise<Caller | undefined>;
  /**
   * The uid an e-mail address signs in as, creating the identity on first use. The address is kept
   * only as the SHA-256 of its normalised form (`user-emails`), so the users file holds no address.
   */
  userForEmail(email: string): Promise<{ uid: string; created: boolean }>;
}

/** Index from the SHA-256 of a normalised e-mail address to its uid (collection `user-emails`). */
export interface EmailIndexRecord {
  email_hash: string;
  uid: string;
  created_at: string;
}

export const USER_EMAILS = 'user-emails';

/** Trimmed and lower-cased: addresses are matched case-insensitively, as users type them. */
export function emailHash(email: string): string {
  return sha256Hex(`core-email|${email.trim().toLowerCase()}`);
}

export const KEYS = 'keys';
export const USERS = 'users';

/** uids of developer keys start with this; user uids never do. */
export const DEVELOPER_UID_PREFIX = 'key:';

export function developerUid(keyId: string): string {
  return `${DEVELOPER_UID_PREFIX}${keyId}`;
}

export function isDeveloperUid(uid: string | null): boolean {
  return uid !== null && uid.startsWith(DEVELOPER_UID_PREFIX);
}

/** How long a key's `last_used_at` may lag: writing it on every request would rewrite the key file each time. */
const LAST_USED_RESOLUTION_MS = 60_000;

export function createIdentityService(deps: { store: Store; clock: Clock; quotas: QuotasService }): IdentityService {
  const { store, clock, quotas } = deps;
  const iso = (): string => new Date(clock.now()).toISOString();

  const issue = async (
    fields: Omit<KeyRecord, 'key_id' | 'hash' | 'created_at' | 'uid'> & { uid?: string },
    uidOf?: (keyId: string) => string,
  ): Promise<IssuedKey> => {
    const key = newRawKey();
    const keyId = newKeyId();
    const record: KeyRecord = {
      ...fields,
      uid: uidOf ? uidOf(keyId) : fields.uid!,
      key_id: keyId,
      hash: hashKey(key),
      key_prefix: key.slice(0, 9),
      created_at: iso(),
    };
    await store.docs.insert(KEYS, record.hash, record);
    return { key, record };
  };

  const live = (record: KeyRecord): boolean =>
    !record.revoked_at && !(record.expires_at && Date.parse(record.expires_at) <= clock.now());

  async function machineKey(slug: string, keyId: string): Promise<KeyRecord | undefined> {
    return (await store.docs.find<KeyRecord>(KEYS, { machine: slug, key_id: keyId }, { limit: 1 })).items[0];
  }

  function touch(record: KeyRecord): void {
    const now = clock.now();
    if (record.last_used_at && now - Date.parse(record.last_used_at) < LAST_USED_RESOLUTION_MS) return;
    // Best effort and off the request path: a failed or late write only leaves last_used_at older.
    store.docs
      .update<KeyRecord>(KEYS, record.hash, (current) => (current ? { ...current, last_used_at: new Date(now).toISOString() } : undefined))
      .catch(() => undefined);
  }

  return {
    async mintDemoKey(label, clientIp) {
      await quotas.takeDemoKey(clientIp);
      const uid = newUid();
      const user: UserRecord = { uid, created_at: iso(), created_tick: clock.tick() };
      await store.docs.insert(USERS, uid, user);
      const { key, record } = await issue({ uid, kind: 'user', ...(label ? { name: label } : {}) });
      return { key, uid, key_id: record.key_id, created_at: record.created_at };
    },

    issueMachineKey: (input) => issue(input),

    issueDeveloperKey: (input) =>
      issue(
        {
          kind: 'developer',
          machine: input.machine,
          scope: input.scope,
          name: input.name,
          rate_limit_tier: input.rate_limit_tier ?? null,
          expires_at: input.expires_at ?? null,
          created_by: input.created_by,
          revoked_at: null,
          last_used_at: null,
        },
        developerUid,
      ),

    async machineKeys(slug) {
      return (await store.docs.find<KeyRecord>(KEYS, { machine: slug })).items.filter((r) => r.kind !== 'user' && live(r));
    },

    machineKey,

    async revokeKey(slug, keyId) {
      const found = await machineKey(slug, keyId);
      if (!found) return false;
      let revoked = false;
      await store.docs.update<KeyRecord>(KEYS, found.hash, (current) => {
        if (!current || current.revoked_at) return undefined;
        revoked = true;
        return { ...current, revoked_at: iso() };
      });
      return revoked;
    },

    async isUser(uid) {
      return (await store.docs.get<UserRecord>(USERS, uid)) !== undefined;
    },

    async userForEmail(email) {
      const id = emailHash(email);
      const known = await store.docs.get<EmailIndexRecord>(USER_EMAILS, id);
      if (known) return { uid: known.uid, created: false };
      const uid = newUid();
      try {
        // The index entry is written first: of two concurrent first logins, one wins and both get its uid.
        await store.docs.insert<EmailIndexRecord>(USER_EMAILS, id, { email_hash: id, uid, created_at: iso() });
      } catch (err) {
        if (!(err instanceof DuplicateKeyError)) throw err;
        return { uid: (await store.docs.get<EmailIndexRecord>(USER_EMAILS, id))!.uid, created: false };
      }
      await store.docs.insert<UserRecord>(USERS, uid, { uid, created_at: iso(), created_tick: clock.tick() });
      return { uid, created: true };
    },

    async resolveKey(raw) {
      if (!looksLikeKey(raw)) return undefined;
      const record = await store.docs.get<KeyRecord>(KEYS, hashKey(raw));
      if (!record || !live(record)) return undefined;
      touch(record);
      const caller: Caller = {
        uid: record.uid,
        credential: record.kind === 'user' ? 'user-key' : 'machine-key',
        keyId: record.key_id,
      };
      if (record.machine) caller.machine = record.machine;
      if (record.scope) caller.scope = record.scope;
      if (record.rate_limit_tier) caller.rateTier = record.rate_limit_tier;
      if (record.expires_at) caller.expiresAtMs = Date.parse(record.expires_at);
      return caller;
    },
  };
}
