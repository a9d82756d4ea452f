import { createPublicKey, verify } from 'node:crypto';
import { canonicalJson } from '../../lib/canonical-json.js';
import { sha256Hex } from '../../lib/hash.js';
/**
 * Checkpoints and seals, as plain data plus the checks a verifier runs offline. Nothing here touches the
 * store: `core-server verify` uses the same functions as the server.
 */
export const SEAL_FORMAT = 'core-seal-v1';
/** The exact text a checkpoint signature covers, with placeholders; repeated in every seal. */
export const CHECKPOINT_MESSAGE_TEMPLATE = 'checkpoint|<slug>|<seq>|<tick>|<head_hash>|<signed_tick>';
export function checkpointMessage(c) {
    return `checkpoint|${c.slug}|${c.seq}|${c.tick}|${c.head_hash}|${c.signed_tick}`;
}
/** What the artifact signature covers: canonical JSON of the artifact without `signature`. */
export function sealSigningInput(artifact) {
    const { signature: _ignored, ...rest } = artifact;
    return canonicalJson(rest);
}
/** Key id of a raw Ed25519 public key (base64url): first 16 hex characters of its SHA-256, as in the JWKS. */
export function keyIdOf(publicKeyB64url) {
    return sha256Hex(Buffer.from(publicKeyB64url, 'base64url')).slice(0, 16);
}
/** An Ed25519 public key from its raw 32 bytes in base64url; throws on anything else. */
export function publicKeyFromRaw(publicKeyB64url) {
    return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: publicKeyB64url }, format: 'jwk' });
}
/** The raw public key (base64url) of an Ed25519 KeyObject. */
export function rawPublicKeyOf(key) {
    return key.export({ format: 'jwk' }).x;
}
export function verifySignature(key, message, signature) {
    try {
        return verify(null, Buffer.from(message), key, Buffer.from(signature, 'base64url'));
    }
    catch {
        return false;
    }
}
const HEX64 = /^[0-9a-f]{64}$/;
/** Checks a seal offline: key id, the artifact signature and every checkpoint signature. */
export function verifySeal(value, opts = {}) {
    const problems = [];
    const seal = value;
    if (seal?.format !== SEAL_FORMAT)
        return { valid: false, key_id: null, checkpoints: 0, problems: [`not a ${SEAL_FORMAT} artifact`] };
    if (seal.algorithm !== 'Ed25519' || typeof seal.public_key !== 'string' || typeof seal.signature !== 'string') {
        return { valid: false, key_id: null, checkpoints: 0, problems: ['the seal lacks algorithm Ed25519, public_key or signature'] };
    }
    let key;
    try {
        key = publicKeyFromRaw(seal.public_key);
    }
    catch {
        return { valid: false, key_id: null, checkpoints: 0, problems: ['public_key is not a raw Ed25519 key in base64url'] };
    }
    const keyId = keyIdOf(seal.public_key);
    if (seal.key_id !== keyId)
        problems.push(`key_id ${String(seal.key_id)} is not the id of public_key (${keyId})`);
    if (opts.expectKeyId !== undefined && opts.expectKeyId !== keyId) {
        problems.push(`signed by key ${keyId}, not the expected key ${opts.expectKeyId}`);
    }
    if (!verifySignature(key, sealSigningInput(seal), seal.signature)) {
        problems.push('the artifact signature does not verify: the seal was altered after signing');
    }
    const checkpoints = Array.isArray(seal.checkpoints) ? seal.checkpoints : [];
    checkpoints.forEach((c, i) => {
        const shapeOk = typeof c?.slug === 'string' && Number.isInteger(c.seq) && Number.isInteger(c.tick) && HEX64.test(String(c.head_hash));
        if (!shapeOk || !verifySignature(key, checkpointMessage(c), String(c.signature))) {
            problems.push(`checkpoint ${i} (${String(c?.slug)} seq ${String(c?.seq)}) has a signature that does not verify`);
        }
    });
    return { valid: problems.length === 0, key_id: keyId, checkpoints: checkpoints.length, problems };
}
//# sourceMappingURL=checkpoint.js.map