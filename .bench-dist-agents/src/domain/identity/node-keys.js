import { createHmac, createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes, sign, verify } from 'node:crypto';
import { sha256Hex } from '../../lib/hash.js';
import { DuplicateKeyError } from '../../storage/port.js';
export const NODE_KEYS = 'node-keys';
const ID = 'node';
/** Loads the node's keys, creating and storing them on first start (first writer wins across processes). */
export async function loadNodeKeys(deps) {
    let stored = await deps.store.docs.get(NODE_KEYS, ID);
    if (!stored) {
        const { privateKey } = generateKeyPairSync('ed25519');
        const fresh = {
            ed25519_private_pem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
            receipt_key_hex: randomBytes(32).toString('hex'),
            created_at: new Date(deps.now?.() ?? Date.now()).toISOString(),
        };
        try {
            await deps.store.docs.insert(NODE_KEYS, ID, fresh);
            stored = fresh;
        }
        catch (err) {
            if (!(err instanceof DuplicateKeyError))
                throw err;
            stored = (await deps.store.docs.get(NODE_KEYS, ID));
        }
    }
    return nodeKeysFrom(stored, deps.receiptKey);
}
function nodeKeysFrom(stored, receiptOverride) {
    const privateKey = createPrivateKey(stored.ed25519_private_pem);
    const publicKey = createPublicKey(privateKey);
    const jwk = publicKey.export({ format: 'jwk' });
    const keyId = sha256Hex(Buffer.from(jwk.x, 'base64url')).slice(0, 16);
    const receiptKey = receiptOverride ? Buffer.from(receiptOverride, 'utf8') : Buffer.from(stored.receipt_key_hex, 'hex');
    return {
        keyId,
        publicKey,
        privateKey,
        publicJwk: { kty: 'OKP', crv: 'Ed25519', x: jwk.x, kid: keyId, alg: 'EdDSA', use: 'sig' },
        publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
        sign: (data) => sign(null, typeof data === 'string' ? Buffer.from(data) : data, privateKey).toString('base64url'),
        verify: (data, signature) => {
            try {
                const sig = Buffer.from(signature, /[+/=]/.test(signature) ? 'base64' : 'base64url');
                return verify(null, typeof data === 'string' ? Buffer.from(data) : data, publicKey, sig);
            }
            catch {
                return false;
            }
        },
        receiptKeyId: sha256Hex(receiptKey).slice(0, 16),
        hmac: (data) => createHmac('sha256', receiptKey).update(data).digest('hex'),
    };
}
//# sourceMappingURL=node-keys.js.map