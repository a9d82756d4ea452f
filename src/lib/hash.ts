import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
import { canonicalJson } from './canonical-json.js';

/** Hex SHA-256 of a string (as UTF-8) or bytes. One-shot `crypto.hash`: half the cost of a `Hash` object, paid several times per audited write. */
export function sha256Hex(data: string | Uint8Array): string {
  return hash('sha256', data, 'hex');
}

/** SHA-256 of the canonical JSON of a value. */
export function digestOf(value: unknown): string {
  return sha256Hex(canonicalJson(value));
}

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

/** Random lowercase base32 string of `length` characters (5 bits each). */
export function randomToken(length: number): string {
  const bytes = randomBytes(length);
  let out = '';
  for (let i = 0; i < length; i++) out += BASE32[bytes[i]! & 31];
  return out;
}

/** Compares two hex digests in constant time. */
export function sameDigest(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  return timingSafeEqual(Buffer.from(a), Buffer.from(b));
}
