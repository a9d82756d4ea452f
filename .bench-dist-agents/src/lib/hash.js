import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { canonicalJson } from './canonical-json.js';
export function sha256Hex(data) {
    return createHash('sha256').update(data).digest('hex');
}
/** SHA-256 of the canonical JSON of a value. */
export function digestOf(value) {
    return sha256Hex(canonicalJson(value));
}
const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';
/** Random lowercase base32 string of `length` characters (5 bits each). */
export function randomToken(length) {
    const bytes = randomBytes(length);
    let out = '';
    for (let i = 0; i < length; i++)
        out += BASE32[bytes[i] & 31];
    return out;
}
/** Compares two hex digests in constant time. */
export function sameDigest(a, b) {
    if (a.length !== b.length)
        return false;
    return timingSafeEqual(Buffer.from(a), Buffer.from(b));
}
//# sourceMappingURL=hash.js.map