import { randomToken, sha256Hex } from '../../lib/hash.js';

/** Prefixes that say what a secret is when it turns up in a log or a config: access, refresh, code. */
export const ACCESS_PREFIX = 'oat_';
export const REFRESH_PREFIX = 'ort_';
export const CODE_PREFIX = 'oac_';

/** A fresh secret: the prefix and 43 base32 characters (215 bits). Stored only as its SHA-256. */
export function newSecret(prefix: string): string {
  return `${prefix}${randomToken(43)}`;
}

export function hashSecret(raw: string): string {
  return sha256Hex(`core-oauth|${raw}`);
}

/** Whether a value can be a secret of ours with that prefix at all: anything else is refused without a lookup. */
export function looksLikeSecret(raw: string, prefix: string): boolean {
  return raw.startsWith(prefix) && raw.length === prefix.length + 43 && /^[a-z0-9_]+$/.test(raw);
}

/** base64url SHA-256 of the verifier: the S256 code challenge of RFC 7636. */
export function s256(verifier: string): string {
  return Buffer.from(sha256Hex(verifier), 'hex').toString('base64url');
}

/** RFC 7636 §4.1: 43 to 128 unreserved characters (a challenge has the same form). */
export const PKCE_VALUE = /^[A-Za-z0-9._~-]{43,128}$/;
