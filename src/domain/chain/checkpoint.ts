import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import { canonicalJson } from '../../lib/canonical-json.js';
import { sha256Hex } from '../../lib/hash.js';

/**
 * Checkpoints and seals, as plain data plus the checks a verifier runs offline. Nothing here touches the
 * store: `core-server verify` uses the same functions as the server.
 */

export const SEAL_FORMAT = 'core-seal-v1';

/** The exact text a checkpoint signature covers, with placeholders; repeated in every seal. */
export const CHECKPOINT_MESSAGE_TEMPLATE = 'checkpoint|<slug>|<seq>|<tick>|<head_hash>|<signed_tick>';

/** A machine's chain head signed by the node: proof that row `seq` existed with `head_hash` at `signed_tick`. */
export interface Checkpoint {
  slug: string;
  /** seq of the head row that was signed. */
  seq: number;
  /** Tick of that row. */
  tick: number;
  /** state_hash of that row. */
  head_hash: string;
  /** Tick at which the node signed. */
  signed_tick: number;
  /** Ed25519 signature, base64url, over `checkpointMessage(...)`. */
  signature: string;
}

export type UnsignedCheckpoint = Omit<Checkpoint, 'signature'>;

/** The self-verifying artifact of `GET /api/chain/seal`. */
export interface SealArtifact {
  ok: true;
  format: typeof SEAL_FORMAT;
  origin: string;
  tick: number;
  algorithm: 'Ed25519';
  key_id: string;
  public_key: string;
  checkpoint_every_ticks: number;
  checkpoint_message: string;
  checkpoints: Checkpoint[];
  /** Ed25519 signature, base64url, over the canonical JSON of every other member of the artifact. */
  signature: string;
}

export function checkpointMessage(c: UnsignedCheckpoint): string {
  return `checkpoint|${c.slug}|${c.seq}|${c.tick}|${c.head_hash}|${c.signed_tick}`;
}

/** What the artifact signature covers: canonical JSON of the artifact without `signature`. */
export function sealSigningInput(artifact: Omit<SealArtifact, 'signature'> | SealArtifact): string {
  const { signature: _ignored, ...rest } = artifact as SealArtifact;
  return canonicalJson(rest);
}

/** Key id of a raw Ed25519 public key (base64url): first 16 hex characters of its SHA-256, as in the JWKS. */
export function keyIdOf(publicKeyB64url: string): string {
  return sha256Hex(Buffer.from(publicKeyB64url, 'base64url')).slice(0, 16);
}

/** An Ed25519 public key from its raw 32 bytes in base64url; throws on anything else. */
export function publicKeyFromRaw(publicKeyB64url: string): KeyObject {
  return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: publicKeyB64url }, format: 'jwk' });
}

/** The raw public key (base64url) of an Ed25519 KeyObject. */
export function rawPublicKeyOf(key: KeyObject): string {
  return (key.export({ format: 'jwk' }) as { x: string }).x;
}

export function verifySignature(key: KeyObject, message: string, signature: string): boolean {
  try {
    return verify(null, Buffer.from(message), key, Buffer.from(signature, 'base64url'));
  } catch {
    return false;
  }
}

export interface SealCheck {
  valid: boolean;
  key_id: string | null;
  checkpoints: number;
  /** Every problem found, in order; empty when valid. */
  problems: string[];
}

const HEX64 = /^[0-9a-f]{64}$/;

/** Checks a seal offline: key id, the artifact signature and every checkpoint signature. */
export function verifySeal(value: unknown, opts: { expectKeyId?: string } = {}): SealCheck {
  const problems: string[] = [];
  const seal = value as Partial<SealArtifact>;
  if (seal?.format !== SEAL_FORMAT) return { valid: false, key_id: null, checkpoints: 0, problems: [`not a ${SEAL_FORMAT} artifact`] };
  if (seal.algorithm !== 'Ed25519' || typeof seal.public_key !== 'string' || typeof seal.signature !== 'string') {
    return { valid: false, key_id: null, checkpoints: 0, problems: ['the seal lacks algorithm Ed25519, public_key or signature'] };
  }
  let key: KeyObject;
  try {
    key = publicKeyFromRaw(seal.public_key);
  } catch {
    return { valid: false, key_id: null, checkpoints: 0, problems: ['public_key is not a raw Ed25519 key in base64url'] };
  }
  const keyId = keyIdOf(seal.public_key);
  if (seal.key_id !== keyId) problems.push(`key_id ${String(seal.key_id)} is not the id of public_key (${keyId})`);
  if (opts.expectKeyId !== undefined && opts.expectKeyId !== keyId) {
    problems.push(`signed by key ${keyId}, not the expected key ${opts.expectKeyId}`);
  }
  if (!verifySignature(key, sealSigningInput(seal as SealArtifact), seal.signature)) {
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
