import { createPrivateKey, generateKeyPairSync, sign } from 'node:crypto';
import { sha256Hex } from '../../lib/hash.js';
import { keyIdOf, publicKeyFromRaw, rawPublicKeyOf, verifySignature } from './checkpoint.js';
/**
 * Anchors as data: the pseudonymous id of a machine, the text an anchor signature covers, and the
 * anchor keys (Ed25519, one current key per machine, held by the server).
 */
/** `sha256("<slug>|<genesis_hash>")`: how a mother knows a child without learning its slug. */
export function anchorIdHash(slug, genesisHash) {
    return sha256Hex(`${slug}|${genesisHash.toLowerCase()}`);
}
export function anchorMessage(c) {
    return `anchor|${c.mother_slug}|${c.id_hash}|${c.head_seq}|${c.head_tick}|${c.head_hash.toLowerCase()}`;
}
export const ANCHOR_KEYS = 'anchor-keys';
export function newAnchorKey(slug, idHash, tick) {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const raw = rawPublicKeyOf(publicKey);
    return {
        key_id: `ak_${keyIdOf(raw)}`,
        slug,
        id_hash: idHash,
        public_key: raw,
        private_pem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
        created_tick: tick,
        retired_tick: null,
    };
}
export function signAnchor(key, claim) {
    return sign(null, Buffer.from(anchorMessage(claim)), createPrivateKey(key.private_pem)).toString('base64url');
}
export function verifyAnchor(publicKey, claim, signature) {
    try {
        return verifySignature(publicKeyFromRaw(publicKey), anchorMessage(claim), signature);
    }
    catch {
        return false;
    }
}
/** Anchoring settings of each machine, by slug. */
export const ANCHOR_CONFIGS = 'anchor-configs';
/** Per mother and child: count and latest anchored head (`<mother>|<id_hash>`). */
export const ANCHORED = 'anchored';
export const DEFAULT_ANCHOR_EVERY_TICKS = 1287;
//# sourceMappingURL=anchor.js.map