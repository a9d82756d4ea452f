import type { Store } from '../../storage/port.js';

/**
 * One registry version (id = version): the digest of every artifact as it was when the version was
 * recorded. A version is recorded only when some digest changed.
 */
export interface RegistryVersionRecord {
  version: string;
  n: number;
  created_at: string;
  created_tick: number;
  digests: Record<string, string>;
}

/** The registry's history, one record per version. */
const VERSIONS = 'manifest-versions';

export interface RegistryVersionRepository {
  /**
   * Every recorded version. Listed whole: a version is added only when a process first serves artifacts
   * that differ from the latest one (a release), so the history stays small.
   */
  all(): Promise<RegistryVersionRecord[]>;
  /** Records a version; fails with `DuplicateKeyError` when another writer recorded that version first. */
  insert(record: RegistryVersionRecord): Promise<void>;
}

/** The one owner of the `manifest-versions` collection. */
export function createRegistryVersionRepository(store: Store): RegistryVersionRepository {
  return {
    all: () => store.docs.list<RegistryVersionRecord>(VERSIONS),
    insert: (record) => store.docs.insert(VERSIONS, record.version, record),
  };
}
