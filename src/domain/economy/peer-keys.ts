import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { errors } from '../../errors.js';
import { sha256Hex } from '../../lib/hash.js';

/** One published Ed25519 public key, bound to the uid it may sign peer calls for. */
export interface PeerKey {
  key_id: string;
  uid: string;
  key: KeyObject;
}

/** Published keys by id, and each uid's current key (the last one listed for it). */
export interface PeerKeyRing {
  byId(keyId: string): PeerKey | undefined;
  currentOf(uid: string): PeerKey | undefined;
  readonly size: number;
}

interface PeerKeyEntry {
  uid?: unknown;
  public_key?: unknown;
  key_id?: unknown;
}

/**
 * Reads `CORE_PEER_KEYS`: inline JSON (an array) or the path of a JSON file holding one. Each entry is
 * `{ "uid": "...", "public_key": "<Ed25519 public key>", "key_id"?: "..." }`, the key as base64url or
 * base64 of the raw 32 bytes, 64 hex characters, or SPKI PEM; `key_id` defaults to the first 16 hex
 * characters of SHA-256 of the raw key (the node key's own id rule). A bad entry stops the server
 * with a message naming it: a peer key silently dropped would only show up as refused calls.
 */
export function loadPeerKeys(source: string | undefined): PeerKeyRing {
  const byId = new Map<string, PeerKey>();
  const current = new Map<string, PeerKey>();
  if (source) {
    const text = source.trim().startsWith('[') ? source : readSource(source);
    let entries: unknown;
    try {
      entries = JSON.parse(text);
    } catch (err) {
      throw new Error(`CORE_PEER_KEYS is not valid JSON: ${(err as Error).message}`, { cause: err });
    }
    if (!Array.isArray(entries)) throw new Error('CORE_PEER_KEYS must be a JSON array of { uid, public_key, key_id? }');
    entries.forEach((entry: PeerKeyEntry, i) => {
      if (typeof entry?.uid !== 'string' || typeof entry.public_key !== 'string') {
        throw new Error(`CORE_PEER_KEYS entry ${i} needs "uid" and "public_key" strings`);
      }
      const key = publicKeyOf(entry.public_key, i);
      const raw = Buffer.from((key.export({ format: 'jwk' }) as { x: string }).x, 'base64url');
      const keyId = typeof entry.key_id === 'string' ? entry.key_id : sha256Hex(raw).slice(0, 16);
      if (byId.has(keyId)) throw new Error(`CORE_PEER_KEYS entry ${i}: key_id "${keyId}" is listed twice`);
      const peer = { key_id: keyId, uid: entry.uid, key };
      byId.set(keyId, peer);
      current.set(entry.uid, peer);
    });
  }
  return { byId: (id) => byId.get(id), currentOf: (uid) => current.get(uid), size: byId.size };
}

function readSource(pathOrJson: string): string {
  if (!existsSync(pathOrJson)) throw new Error(`CORE_PEER_KEYS: no file "${pathOrJson}" (give a JSON array inline or a path to one)`);
  return readFileSync(pathOrJson, 'utf8');
}

function publicKeyOf(text: string, index: number): KeyObject {
  try {
    if (text.includes('BEGIN PUBLIC KEY')) {
      const key = createPublicKey(text);
      if (key.asymmetricKeyType !== 'ed25519') throw new Error('not an Ed25519 key');
      return key;
    }
    const raw = /^[0-9a-fA-F]{64}$/.test(text) ? Buffer.from(text, 'hex') : Buffer.from(text, /[+/=]/.test(text) ? 'base64' : 'base64url');
    if (raw.length !== 32) throw new Error(`raw Ed25519 keys are 32 bytes, got ${raw.length}`);
    return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: raw.toString('base64url') }, format: 'jwk' });
  } catch (err) {
    throw new Error(`CORE_PEER_KEYS entry ${index}: unusable public_key (${(err as Error).message})`, { cause: err });
  }
}

/** Decodes a 64-byte Ed25519 signature given as hex, base64 or base64url; undefined when it is not one. */
export function decodeSignature(sig: string): Buffer | undefined {
  const bytes = /^[0-9a-fA-F]{128}$/.test(sig) ? Buffer.from(sig, 'hex') : Buffer.from(sig, /[+/=]/.test(sig) ? 'base64' : 'base64url');
  return bytes.length === 64 ? bytes : undefined;
}

/**
 * Checks a peer call's signature: the key must be published, bound to `uid`, and its signature over
 * `message` must verify. FORBIDDEN otherwise, saying which of the three failed.
 */
export function checkPeerSignature(ring: PeerKeyRing, uid: string, keyId: string | undefined, message: string, signature: string): PeerKey {
  const peer = keyId === undefined ? ring.currentOf(uid) : ring.byId(keyId);
  if (!peer) {
    throw errors.forbidden(
      keyId === undefined
        ? `No public key is published for uid "${uid}" on this node (CORE_PEER_KEYS)`
        : `No published public key "${keyId}" on this node (CORE_PEER_KEYS)`,
    );
  }
  if (peer.uid !== uid) throw errors.forbidden(`Key "${peer.key_id}" is published for another uid and cannot sign for "${uid}"`);
  const bytes = decodeSignature(signature);
  if (!bytes || !verify(null, Buffer.from(message), peer.key, bytes)) {
    throw errors.forbidden(`The signature does not verify over "${message}" with key "${peer.key_id}"`);
  }
  return peer;
}
