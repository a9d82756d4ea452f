import { DuplicateKeyError } from '../../storage/port.js';
import { type RegistryVersionRecord, type RegistryVersionRepository } from './registry-version-repository.js';
import type { ArtifactFile } from './artifacts.js';

/** Versions are `r<n>`, n counting from 1; they order by n. */
export function versionName(n: number): string {
  return `r${n}`;
}

/** The number of a version name, or undefined when it is not one. */
export function versionNumber(version: string): number | undefined {
  const match = /^r([1-9][0-9]{0,8})$/.exec(version);
  return match ? Number(match[1]) : undefined;
}

export interface VersionedArtifacts {
  registry_version: string;
  /** Each current artifact with the version in which its digest last changed. */
  artifacts: Array<ArtifactFile & { registry_version: string }>;
  /** Artifacts that existed once and are gone, with the version that dropped them. */
  removed: Array<{ path: string; registry_version: string }>;
}

/** Attributes each artifact to the version that last changed it, walking the history oldest first. */
export function attribute(history: RegistryVersionRecord[], current: ArtifactFile[]): VersionedArtifacts {
  const sorted = [...history].sort((a, b) => a.n - b.n);
  const changedIn = new Map<string, string>();
  const removedIn = new Map<string, string>();
  let previous: Record<string, string> = {};
  for (const record of sorted) {
    for (const [p, digest] of Object.entries(record.digests)) {
      if (previous[p] !== digest) changedIn.set(p, record.version);
      removedIn.delete(p);
    }
    for (const p of Object.keys(previous)) if (!(p in record.digests)) removedIn.set(p, record.version);
    previous = record.digests;
  }
  const latest = sorted[sorted.length - 1]!;
  return {
    registry_version: latest.version,
    artifacts: current.map((a) => ({ ...a, registry_version: changedIn.get(a.path) ?? latest.version })),
    removed: [...removedIn].map(([p, v]) => ({ path: p, registry_version: v })).sort((a, b) => (a.path < b.path ? -1 : 1)),
  };
}

/**
 * The history with the current artifacts recorded: a new version is appended when any digest differs
 * from the latest one. Several processes starting together agree on one new version (first insert wins).
 */
export async function recordVersion(
  versions: RegistryVersionRepository,
  current: ArtifactFile[],
  now: { iso: string; tick: number },
): Promise<RegistryVersionRecord[]> {
  const digests = Object.fromEntries(current.map((a) => [a.path, a.sha256]));
  for (let attempt = 0; attempt < 5; attempt++) {
    const history = await versions.all();
    const latest = history.reduce<RegistryVersionRecord | undefined>((m, r) => (m && m.n >= r.n ? m : r), undefined);
    if (latest && sameDigests(latest.digests, digests)) return history;
    const n = (latest?.n ?? 0) + 1;
    const record: RegistryVersionRecord = { version: versionName(n), n, created_at: now.iso, created_tick: now.tick, digests };
    try {
      await versions.insert(record);
      return [...history, record];
    } catch (err) {
      if (!(err instanceof DuplicateKeyError)) throw err;
    }
  }
  throw new Error('could not record the registry version: concurrent writers kept winning');
}

function sameDigests(a: Record<string, string>, b: Record<string, string>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => a[k] === b[k]);
}
