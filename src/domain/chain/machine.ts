import { errors } from '../../errors.js';
import type { Role } from '../identity/caller.js';

export type MachineStatus = 'active' | 'paused' | 'archived';

/** A machine as stored. Counts and the head hash come from its log at read time. */
export interface MachineRecord {
  slug: string;
  display_name: string | null;
  purpose: string | null;
  is_public: boolean;
  status: MachineStatus;
  owner_uid: string;
  genesis_tick: number;
  genesis_hash: string;
  created_at: string;
  updated_at: string;
  /** SHA-256 of the current share token, when sharing is on. */
  share_token_hash?: string | null;
  /** When the share token stops working (ISO-8601); null or absent: never. */
  share_token_expires_at?: string | null;
  /** scrypt hash of the read password (`scrypt$N$r$p$salt$hash`), when one is set. */
  password_hash?: string | null;
}

/**
 * A short-lived read token issued by `unlock`, stored under the SHA-256 of the token. It grants
 * read access to one machine until `expires_ms`, and dies with the password it was unlocked with.
 */
export interface ReadTokenRecord {
  /** SHA-256 of the token; also the record's id. */
  token_hash: string;
  slug: string;
  expires_ms: number;
  /** The machine's `password_hash` when the token was issued: a new or cleared password voids it. */
  password_hash: string;
  created_at: string;
}

/** A role granted on a machine to someone other than its owner. */
export interface RoleGrant {
  slug: string;
  uid: string;
  role: Exclude<Role, 'owner'>;
  granted_by: string;
  granted_at: string;
}

export const SLUG_PATTERN = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;

/** Slugs that would shadow the global `/api/chain/...` routes. */
const RESERVED = new Set(['state-machines', 'aggregate', 'active', 'fleet', 'newest', 'recent', 'rejection-log', 'seal', 'verify-anchor', 'api', 'core']);

export function checkSlug(slug: string): void {
  if (!SLUG_PATTERN.test(slug)) {
    throw errors.validation(`Invalid slug "${slug}": use 1-64 characters of a-z, 0-9 and "-", not starting or ending with "-"`, {
      issues: [{ path: 'slug', message: 'invalid slug', code: 'invalid_slug' }],
    });
  }
  if (RESERVED.has(slug)) {
    throw errors.validation(`The slug "${slug}" is reserved by a route of this service; choose another`, {
      issues: [{ path: 'slug', message: 'reserved slug', code: 'reserved_slug' }],
    });
  }
}

/** Whether the machine's share token exists and has not expired at `nowMs`. */
export function shareActive(machine: MachineRecord, nowMs: number): boolean {
  if (!machine.share_token_hash) return false;
  return !machine.share_token_expires_at || Date.parse(machine.share_token_expires_at) > nowMs;
}

export function grantId(slug: string, uid: string): string {
  return `${slug}/${uid}`;
}
