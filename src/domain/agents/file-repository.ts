import type { Store } from '../../storage/port.js';

export type FileEncoding = 'utf8' | 'base64';

/** One stored version of an agent's file: metadata and where its content lives in the agent's blob log. */
export interface StoredFileVersion {
  version: number;
  bytes: number;
  sha256: string;
  encoding: FileEncoding;
  tick: number;
  created_at: string;
  blob_seq: number;
}

/** A path's versions, metadata only: the content lives in the agent's blob log. */
export interface FileRecord {
  uid: string;
  path: string;
  versions: StoredFileVersion[];
}

const FILES = 'agent-files';
const recordId = (uid: string, path: string) => `${uid}/${path}`;

/** The agents' file records: the only module that names their collection. */
export interface FileRepository {
  byPath(uid: string, path: string): Promise<FileRecord | undefined>;
  /** Read-modify-write of one path's record; returns what is stored afterwards. */
  update(uid: string, path: string, fn: (current: FileRecord | undefined) => FileRecord | undefined): Promise<FileRecord | undefined>;
  /** Every record of the agent (one per path it ever wrote), in no particular order. */
  listByUid(uid: string): Promise<FileRecord[]>;
}

export function createFileRepository(store: Store): FileRepository {
  return {
    byPath: (uid, path) => store.docs.get<FileRecord>(FILES, recordId(uid, path)),
    update: (uid, path, fn) => store.docs.update<FileRecord>(FILES, recordId(uid, path), fn),
    listByUid: async (uid) => (await store.docs.find<FileRecord>(FILES, { uid })).items,
  };
}
