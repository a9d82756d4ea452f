import type { Clock } from '../../lib/clock.js';
import type { Caller } from './caller.js';
import { hashKey, looksLikeKey, newKeyId, newRawKey, newUid } from './keys.js';
import { sha256Hex } from '../../lib/hash.js';
import type { QuotasService } from '../quotas/quotas.service.js';
import { type KeyRecord, type KeyRepository } from './key-repository.js';
import { type UserRecord, type UserRepository } from './user-repository.js';

export type { KeyRecord } from './key-repository.js';
export type { UserRecord } from './user-repository.js';

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
  /** The same for a key known by its hash (an OAuth grant keeps the hash of the key that approved it). */
  resolveKeyHash(hash: string): Promise<Caller | undefined>;
  /**
   * Whether the credential `caller` was resolved from still holds now: not expired (a key's
   * `expires_at`, a session's `exp`) and, for a key bound to a machine, not revoked (a fresh read). User
   * keys cannot be revoked, and anonymous callers have nothing to lose. What work that waits, and open
   * streams, re-check before they go on.
   */
  credentialLive(caller: Caller): Promise<boolean>;
  /**
   * The uid an e-mail address signs in as, creating the identity on first use. The address is kept
   * only as the SHA-256 of its normalised form (see `user-repository.ts`), so the users file holds no address.
   */
  userForEmail(email: string): Promise<{ uid: string; created: boolean }>;
}

/** Trimmed and lower-cased: addresses are matched case-insensitively, as users type them. */
export function emailHash(email: string): string {
  return sha256Hex(`core-email|${email.trim().toLowerCase()}`);
}

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

export function createIdentityService(deps: {
  keys: KeyRepository;
  users: UserRepository;
  clock: Clock;
  quotas: QuotasService;
  /** Whether an OAuth caller's grant still holds (the OAuth service, built after this one). */
  oauthGrantLive?: (caller: Caller) => Promise<boolean>;
}): IdentityService {
  const { keys, users, clock, quotas } = deps;
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
    await keys.insert(record);
    return { key, record };
  };

  const live = (record: KeyRecord): boolean => !record.revoked_at && !(record.expires_at && Date.parse(record.expires_at) <= clock.now());

  async function machineKey(slug: string, keyId: string): Promise<KeyRecord | undefined> {
    return keys.byMachineKeyId(slug, keyId);
  }

  function touch(record: KeyRecord): void {
    const now = clock.now();
    if (record.last_used_at && now - Date.parse(record.last_used_at) < LAST_USED_RESOLUTION_MS) return;
    // Best effort and off the request path: a failed or late write only leaves last_used_at older.
    keys.touch(record.hash, new Date(now).toISOString()).catch(() => undefined);
  }

  async function resolveKeyHash(hash: string): Promise<Caller | undefined> {
    const record = await keys.byHash(hash);
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
  }

  return {
    async mintDemoKey(label, clientIp) {
      await quotas.takeDemoKey(clientIp);
      const uid = newUid();
      const user: UserRecord = { uid, created_at: iso(), created_tick: clock.tick() };
      await users.insert(user);
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
      return (await keys.byMachine(slug)).filter((r) => r.kind !== 'user' && live(r));
    },

    machineKey,

    async revokeKey(slug, keyId) {
      const found = await machineKey(slug, keyId);
      if (!found) return false;
      return keys.revoke(found.hash, iso());
    },

    async isUser(uid) {
      return (await users.byUid(uid)) !== undefined;
    },

    async userForEmail(email) {
      const id = emailHash(email);
      const known = await users.uidForEmail(id);
      if (known) return { uid: known, created: false };
      const uid = newUid();
      // The index entry is written first: of two concurrent first logins, one wins and both get its uid.
      const bound = await users.claimEmail(id, uid, iso());
      if (bound !== uid) return { uid: bound, created: false };
      await users.insert({ uid, created_at: iso(), created_tick: clock.tick() });
      return { uid, created: true };
    },

    async resolveKey(raw) {
      return looksLikeKey(raw) ? resolveKeyHash(hashKey(raw)) : undefined;
    },

    resolveKeyHash,

    async credentialLive(caller) {
      if (caller.expiresAtMs !== undefined && caller.expiresAtMs <= clock.now()) return false;
      if (caller.oauth && !(await (deps.oauthGrantLive?.(caller) ?? Promise.resolve(false)))) return false;
      if (caller.credential !== 'machine-key' || caller.machine === undefined || caller.keyId === undefined) return true;
      const record = await machineKey(caller.machine, caller.keyId);
      return record !== undefined && live(record);
    },
  };
}
