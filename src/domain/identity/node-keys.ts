import { createHmac, createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes, sign, verify, type KeyObject } from 'node:crypto';
import { sha256Hex } from '../../lib/hash.js';
import type { NodeKeyRepository } from './node-key-repository.js';

/**
 * The node's own keys, generated once and kept in the store (collection `node-keys`, which holds
 * secrets: never export or log it):
 * - an Ed25519 signing key for seals, checkpoints, signed claims, update manifests and session JWTs;
 * - an HMAC-SHA256 key for receipts (`CORE_RECEIPT_KEY` overrides the stored one).
 */
export interface NodeKeys {
  /** Id of the Ed25519 key: the first 16 hex characters of the SHA-256 of its raw public key. */
  readonly keyId: string;
  readonly publicKey: KeyObject;
  readonly privateKey: KeyObject;
  /** The public key as a JWK (`kty: OKP`, `crv: Ed25519`, `kid`, `alg: EdDSA`, `use: sig`). */
  readonly publicJwk: Record<string, string>;
  /** The public key as SPKI PEM, for clients that pin it. */
  readonly publicKeyPem: string;
  /** Ed25519 signature of `data`, base64url. */
  sign(data: string | Uint8Array): string;
  /** Checks an Ed25519 signature (base64url or base64) of `data` against this node's key. */
  verify(data: string | Uint8Array, signature: string): boolean;
  /** Id of the receipt HMAC key: first 16 hex characters of SHA-256 of the key, never the key itself. */
  readonly receiptKeyId: string;
  /** HMAC-SHA256 of `data` with the receipt key, hex. */
  hmac(data: string | Uint8Array): string;
}

interface StoredKeys {
  ed25519_private_pem: string;
  receipt_key_hex: string;
  created_at: string;
}

const ID = 'node';

/** Loads the node's keys, creating and storing them on first start (first writer wins across processes). */
export async function loadNodeKeys(deps: { nodeKeyRecords: NodeKeyRepository; receiptKey?: string | undefined; now?: () => number }): Promise<NodeKeys> {
  const stored = await deps.nodeKeyRecords.getOrCreate<StoredKeys>(ID, () => {
    const { privateKey } = generateKeyPairSync('ed25519');
    return {
      ed25519_private_pem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      receipt_key_hex: randomBytes(32).toString('hex'),
      created_at: new Date(deps.now?.() ?? Date.now()).toISOString(),
    };
  });
  return nodeKeysFrom(stored, deps.receiptKey);
}

function nodeKeysFrom(stored: StoredKeys, receiptOverride: string | undefined): NodeKeys {
  const privateKey = createPrivateKey(stored.ed25519_private_pem);
  const publicKey = createPublicKey(privateKey);
  const jwk = publicKey.export({ format: 'jwk' }) as { x: string };
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
      } catch {
        return false;
      }
    },
    receiptKeyId: sha256Hex(receiptKey).slice(0, 16),
    hmac: (data) => createHmac('sha256', receiptKey).update(data).digest('hex'),
  };
}
