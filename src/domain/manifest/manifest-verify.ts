import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import { canonicalJson } from '../../lib/canonical-json.js';
import { versionNumber } from './registry-versions.js';

/** A pinned public key: what a client trusts, read from a file it keeps. */
export interface PinnedKey {
  key: KeyObject;
  /** Key id, when the pinned form names one (a JWK `kid`). */
  kid?: string;
}

/**
 * Reads pinned Ed25519 public keys from text: an SPKI PEM, a JWK, or a JWK Set (the answer of
 * `GET /api/.well-known/jwks.json`). Throws with what is wrong when nothing usable is found.
 */
export function pinnedKeysFrom(text: string): PinnedKey[] {
  const trimmed = text.trim();
  if (trimmed.startsWith('-----BEGIN')) return [{ key: ed25519(createPublicKey(trimmed)) }];
  let parsed: unknown;
  try {
    parsed = JSON.parse(trimmed);
  } catch {
    throw new Error('the key file is neither a PEM public key nor JSON (a JWK or a JWK Set)');
  }
  const jwks = (parsed as { keys?: unknown }).keys;
  const list = Array.isArray(jwks) ? jwks : [parsed];
  const keys = list
    .filter(
      (k): k is Record<string, string> =>
        typeof k === 'object' && k !== null && (k as { kty?: unknown }).kty === 'OKP' && (k as { crv?: unknown }).crv === 'Ed25519',
    )
    .map((jwk) => ({ key: createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: jwk.x! }, format: 'jwk' }), ...(jwk.kid ? { kid: jwk.kid } : {}) }));
  if (keys.length === 0) throw new Error('the key file holds no Ed25519 public key (kty "OKP", crv "Ed25519")');
  return keys;
}

function ed25519(key: KeyObject): KeyObject {
  if (key.asymmetricKeyType !== 'ed25519') throw new Error(`the pinned key is ${key.asymmetricKeyType ?? 'not asymmetric'}, not Ed25519`);
  return key;
}

export interface ManifestArtifactView {
  name: string;
  path: string;
  sha256: string;
  size_bytes: number;
  registry_version: string;
}

export interface ManifestCheck {
  valid: boolean;
  /** Why the manifest was refused; absent when valid. */
  problem?: string;
  registry_version?: string;
  key_id?: string;
  /** Artifacts changed after `since` (every artifact without `since`). */
  changed: ManifestArtifactView[];
  removed: Array<{ path: string; registry_version: string }>;
}

/**
 * Checks a signed manifest (the answer of `GET /api/updates/manifest`, or its `{manifest, signature}`)
 * against pinned keys: the Ed25519 signature over the canonical JSON of `manifest` must verify with a
 * pinned key. Then lists what changed after `since` (a version such as "r3").
 */
export function checkManifest(document: unknown, pinned: PinnedKey[], since?: string): ManifestCheck {
  const refused = (problem: string): ManifestCheck => ({ valid: false, problem, changed: [], removed: [] });
  const doc = document as { manifest?: Record<string, unknown>; signature?: { alg?: unknown; key_id?: unknown; value?: unknown } };
  if (!doc || typeof doc.manifest !== 'object' || doc.manifest === null || typeof doc.signature?.value !== 'string') {
    return refused('not a signed manifest: expected {"manifest": {...}, "signature": {"alg", "key_id", "value"}}');
  }
  if (doc.signature.alg !== 'Ed25519') return refused(`unsupported signature algorithm ${String(doc.signature.alg)}`);
  const sinceN = since === undefined ? undefined : versionNumber(since);
  if (since !== undefined && sinceN === undefined) return refused(`"${since}" is not a registry version (they look like "r3")`);
  const keyId = typeof doc.signature.key_id === 'string' ? doc.signature.key_id : undefined;
  const candidates = pinned.filter((p) => p.kid === undefined || keyId === undefined || p.kid === keyId);
  const message = Buffer.from(canonicalJson(doc.manifest));
  const signature = Buffer.from(doc.signature.value, /[+/=]/.test(doc.signature.value) ? 'base64' : 'base64url');
  const ok = candidates.some((p) => {
    try {
      return verify(null, message, p.key, signature);
    } catch {
      return false;
    }
  });
  if (!ok) return refused('the signature does not verify with the pinned key: the manifest was altered or signed by another node');
  const filteredFrom = typeof doc.manifest.since_version === 'string' ? versionNumber(doc.manifest.since_version) : undefined;
  if (filteredFrom !== undefined && (sinceN === undefined || sinceN < filteredFrom)) {
    return refused(
      `the signature is valid, but this manifest lists only changes after ${String(doc.manifest.since_version)}: fetch it with an older since_version or none to compare from ${since ?? 'the start'}`,
    );
  }
  const artifacts = (Array.isArray(doc.manifest.artifacts) ? doc.manifest.artifacts : []) as ManifestArtifactView[];
  const removed = (Array.isArray(doc.manifest.removed) ? doc.manifest.removed : []) as ManifestCheck['removed'];
  const after = (v: string) => sinceN === undefined || (versionNumber(v) ?? 0) > sinceN;
  return {
    valid: true,
    registry_version: String(doc.manifest.registry_version),
    ...(keyId ? { key_id: keyId } : {}),
    changed: artifacts.filter((a) => after(a.registry_version)),
    removed: removed.filter((r) => after(r.registry_version)),
  };
}
