import { randomToken, sha256Hex } from '../../lib/hash.js';
/** Every raw key this server issues starts with this prefix. */
export const KEY_PREFIX = 'core_';
/** A fresh raw key: `core_` + 40 base32 characters (200 bits). Shown once, stored only as SHA-256. */
export function newRawKey() {
    return `${KEY_PREFIX}${randomToken(40)}`;
}
export function hashKey(raw) {
    return sha256Hex(raw);
}
/** Whether a string can be a key of ours at all; anything else is refused without a lookup. */
export function looksLikeKey(raw) {
    return raw.startsWith(KEY_PREFIX) && raw.length >= 20 && raw.length <= 128 && /^[a-z0-9_]+$/.test(raw);
}
/** A new uid: `u` + 15 base32 characters. */
export function newUid() {
    return `u${randomToken(15)}`;
}
/** A short public id for a key, safe to list (never derived from the raw value). */
export function newKeyId() {
    return `key_${randomToken(16)}`;
}
//# sourceMappingURL=keys.js.map