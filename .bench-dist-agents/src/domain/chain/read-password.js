import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
/** scrypt cost: N = 2^14, r = 8, p = 1 (about 16 MiB and a few tens of ms per hash). */
const PARAMS = { N: 16384, r: 8, p: 1 };
const KEY_LENGTH = 32;
function derive(password, salt, opts) {
    return new Promise((resolve, reject) => {
        scrypt(password.normalize('NFC'), salt, KEY_LENGTH, { ...opts, maxmem: 64 * 1024 * 1024 }, (err, key) => (err ? reject(err) : resolve(key)));
    });
}
/** Hashes a read password as `scrypt$N$r$p$<salt b64url>$<hash b64url>`; the password itself is never stored. */
export async function hashPassword(password) {
    const salt = randomBytes(16);
    const key = await derive(password, salt, PARAMS);
    return `scrypt$${PARAMS.N}$${PARAMS.r}$${PARAMS.p}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}
/** Checks a password against a stored hash in constant time; a malformed hash never matches. */
export async function checkPassword(password, stored) {
    const parts = stored.split('$');
    if (parts.length !== 6 || parts[0] !== 'scrypt')
        return false;
    const [, n, r, p, salt, hash] = parts;
    const expected = Buffer.from(hash, 'base64url');
    const key = await derive(password, Buffer.from(salt, 'base64url'), { N: Number(n), r: Number(r), p: Number(p) });
    return key.length === expected.length && timingSafeEqual(key, expected);
}
//# sourceMappingURL=read-password.js.map