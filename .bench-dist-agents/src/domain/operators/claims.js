import { createPublicKey, verify } from 'node:crypto';
import { errors } from '../../errors.js';
import { canonicalJson } from '../../lib/canonical-json.js';
export function signClaim(keys, claim) {
    return { claim, signature: keys.sign(canonicalJson(claim)), public_key: rawPublicKey(keys) };
}
/** The node's Ed25519 public key as base64url of its raw 32 bytes (the JWK `x`). */
export function rawPublicKey(keys) {
    return keys.publicJwk.x;
}
/**
 * Reads an Ed25519 public key given as base64url (or base64) of the raw 32 bytes, or as SPKI PEM.
 * Anything else is VALIDATION_FAILED: the caller has to fix the key, no verdict can be reached.
 */
export function parsePublicKey(text) {
    const trimmed = text.trim();
    try {
        if (trimmed.startsWith('-----BEGIN')) {
            const key = createPublicKey(trimmed);
            if (key.asymmetricKeyType === 'ed25519')
                return key;
        }
        else {
            const raw = Buffer.from(trimmed, /[+/=]/.test(trimmed) ? 'base64' : 'base64url');
            if (raw.length === 32)
                return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: raw.toString('base64url') }, format: 'jwk' });
        }
    }
    catch {
        /* reported below */
    }
    throw errors.validation('public_key must be an Ed25519 public key: base64url of the raw 32 bytes, or SPKI PEM', {
        field: 'public_key',
    });
}
/** Whether `signature` (base64url or base64) is a valid Ed25519 signature of the canonical claim. */
export function claimSignatureValid(claim, signature, key) {
    try {
        const sig = Buffer.from(signature, /[+/=]/.test(signature) ? 'base64' : 'base64url');
        return verify(null, Buffer.from(canonicalJson(claim)), key, sig);
    }
    catch {
        return false;
    }
}
//# sourceMappingURL=claims.js.map