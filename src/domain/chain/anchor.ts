import { createHmac, createPrivateKey, generateKeyPairSync, sign } from 'node:crypto';
import { sha256Hex } from '../../lib/hash.js';
import { keyIdOf, publicKeyFromRaw, rawPublicKeyOf, verifySignature } from './checkpoint.js';

/**
 * Anchors as data: the pseudonymous id of a machine, the text an anchor signature covers, and the
 * anchor keys (Ed25519, one current key per machine, held by the server).
 */

/** Id of the node secret (in `node-keys`) that keys anchor pseudonyms. */
export const ANCHOR_ID_SECRET = 'anchor-id';

/**
 * How a mother knows a child without learning its slug: `HMAC-SHA256(node secret, "anchor-id|<slug>|<genesis_hash>")`.
 * Keyed because a genesis hash derives from the slug and a creation tick: an unkeyed hash of them can be
 * reversed by guessing a slug and a few hundred ticks. Only the node (and, through it, readers of the
 * machine) can compute it.
 */
export function anchorIdHash(secret: Buffer, slug: string, genesisHash: string): string {
  return createHmac('sha256', secret).update(`anchor-id|${slug}|${genesisHash.toLowerCase()}`).digest('hex');
}

/**
 * The pseudonym anchors used before it was keyed, `sha256("<slug>|<genesis_hash>")`: still recognised
 * when a reader of the machine verifies, so anchors made before the change stay verifiable.
 */
export function legacyAnchorIdHash(slug: string, genesisHash: string): string {
  return sha256Hex(`${slug}|${genesisHash.toLowerCase()}`);
}

export interface AnchorClaim {
  mother_slug: string;
  id_hash: string;
  head_seq: number;
  head_tick: number;
  head_hash: string;
}

export function anchorMessage(c: AnchorClaim): string {
  return `anchor|${c.mother_slug}|${c.id_hash}|${c.head_seq}|${c.head_tick}|${c.head_hash.toLowerCase()}`;
}

/** An anchor key as stored (collection `anchor-keys`, by key id; it holds a secret: never export or log it). */
export interface AnchorKeyRecord {
  key_id: string;
  slug: string;
  id_hash: string;
  public_key: string;
  private_pem: string;
  created_tick: number;
  retired_tick: number | null;
}

export function newAnchorKey(slug: string, idHash: string, tick: number): AnchorKeyRecord {
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

export function signAnchor(key: AnchorKeyRecord, claim: AnchorClaim): string {
  return sign(null, Buffer.from(anchorMessage(claim)), createPrivateKey(key.private_pem)).toString('base64url');
}

export function verifyAnchor(publicKey: string, claim: AnchorClaim, signature: string): boolean {
  try {
    return verifySignature(publicKeyFromRaw(publicKey), anchorMessage(claim), signature);
  } catch {
    return false;
  }
}

export const DEFAULT_ANCHOR_EVERY_TICKS = 1287;

export interface AnchorConfigRecord {
  slug: string;
  enabled: boolean;
  mother_slug: string | null;
  every_ticks: number;
  key_id: string | null;
  last_anchor_tick: number | null;
  /** Child head seq covered by the last anchor. */
  last_anchor_seq: number | null;
  /** seq of the child's own `anchor.sent` row, which is no reason to anchor again. */
  last_sent_seq: number | null;
  last_error: string | null;
}

export interface AnchorView {
  anchor_id: string;
  id_hash: string;
  head_seq: number;
  head_tick: number;
  head_hash: string;
  anchored_tick: number;
  mother_seq: number;
}

export interface AnchoredRecord {
  mother_slug: string;
  id_hash: string;
  anchor_count: number;
  first_tick: number;
  last_tick: number;
  last: AnchorView;
}
