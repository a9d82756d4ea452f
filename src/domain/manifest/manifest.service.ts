import { errors } from '../../errors.js';
import { canonicalJson } from '../../lib/canonical-json.js';
import type { Clock } from '../../lib/clock.js';
import type { NodeKeys } from '../identity/node-keys.js';
import { scanArtifacts } from './artifacts.js';
import { attribute, recordVersion, versionNumber, type VersionedArtifacts } from './registry-versions.js';
import { onceUnlessFailed } from '../../lib/once.js';
import type { RegistryVersionRepository } from './registry-version-repository.js';

/** The document the node signs: its canonical JSON is the signed message. */
export interface UpdateManifest {
  registry_version: string;
  issued_at: string;
  issued_tick: number;
  /** The version the artifact list was filtered from (`since_version`), or null for the full list. */
  since_version: string | null;
  artifacts: VersionedArtifacts['artifacts'];
  removed: VersionedArtifacts['removed'];
}

export interface SignedManifest {
  manifest: UpdateManifest;
  signature: { alg: 'Ed25519'; key_id: string; value: string };
}

export interface ManifestService {
  /** The signed manifest; with `sinceVersion`, only what changed or was removed after that version. */
  get(sinceVersion?: string): Promise<SignedManifest>;
}

/**
 * The update manifest over the files under `catalog/` and `resources/` of the package at `root`.
 * Files are digested once per process (they do not change while it runs) and compared with the
 * recorded history, which gains a version when something changed since the last run.
 */
export function createManifestService(deps: { registryVersions: RegistryVersionRepository; clock: Clock; nodeKeys: NodeKeys; root: string }): ManifestService {
  const { registryVersions, clock, nodeKeys } = deps;
  const state = onceUnlessFailed(() => load());

  const load = async (): Promise<VersionedArtifacts> => {
    const current = await scanArtifacts(deps.root);
    const history = await recordVersion(registryVersions, current, { iso: new Date(clock.now()).toISOString(), tick: clock.tick() });
    return attribute(history, current);
  };

  return {
    async get(sinceVersion) {
      const since = sinceVersion === undefined ? undefined : versionNumber(sinceVersion);
      if (sinceVersion !== undefined && since === undefined) {
        throw errors.validation(`since_version "${sinceVersion}" is not a registry version; versions look like "r3"`, {
          issues: [{ path: 'since_version', message: 'expected r<n>', code: 'invalid_version' }],
        });
      }
      const versioned = await state();
      const after = (v: string) => since === undefined || (versionNumber(v) ?? 0) > since;
      const manifest: UpdateManifest = {
        registry_version: versioned.registry_version,
        issued_at: new Date(clock.now()).toISOString(),
        issued_tick: clock.tick(),
        since_version: sinceVersion ?? null,
        artifacts: versioned.artifacts.filter((a) => after(a.registry_version)),
        removed: versioned.removed.filter((r) => after(r.registry_version)),
      };
      const value = Buffer.from(nodeKeys.sign(canonicalJson(manifest)), 'base64url').toString('base64');
      return { manifest, signature: { alg: 'Ed25519', key_id: nodeKeys.keyId, value } };
    },
  };
}
