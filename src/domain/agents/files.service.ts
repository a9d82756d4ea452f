import { CoreError, errors } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import { pageOf } from '../../lib/cursor.js';
import { sha256Hex } from '../../lib/hash.js';
import type { BlobRepository } from './blob-repository.js';
import { normalizeFilePath, normalizePrefix } from './file-path.js';
import { type FileEncoding, type StoredFileVersion, type FileRepository } from './file-repository.js';

export type { FileEncoding } from './file-repository.js';

/** One version of a file, as shown to callers. */
export interface FileVersionView {
  path: string;
  version: number;
  bytes: number;
  sha256: string;
  encoding: FileEncoding;
  tick: number;
  created_at: string;
}

/** Largest file content, decoded. */
export const MAX_FILE_BYTES = 1024 * 1024;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export interface FilesService {
  /** Adds a version (earlier ones are kept); the path is normalised first. */
  write(uid: string, input: { path: string; content: string; encoding: FileEncoding }): Promise<FileVersionView>;
  read(
    uid: string,
    input: { path: string; version?: number; encoding?: FileEncoding },
  ): Promise<FileVersionView & { content: string; content_encoding: FileEncoding }>;
  list(
    uid: string,
    input: { prefix?: string; limit: number; cursor?: string },
  ): Promise<{ files: Array<{ path: string; latest_version: number; bytes: number; sha256: string; updated_at: string }>; next_cursor: string | null }>;
  history(
    uid: string,
    input: { path: string; limit: number; cursor?: string },
  ): Promise<{ path: string; versions: FileVersionView[]; next_cursor: string | null }>;
}

export function createFilesService(deps: { fileRecords: FileRepository; clock: Clock; blobs: BlobRepository }): FilesService {
  const { fileRecords, clock, blobs } = deps;

  const viewOf = (path: string, v: StoredFileVersion): FileVersionView => ({
    path,
    version: v.version,
    bytes: v.bytes,
    sha256: v.sha256,
    encoding: v.encoding,
    tick: v.tick,
    created_at: v.created_at,
  });

  async function recordOf(uid: string, path: string) {
    const record = await fileRecords.byPath(uid, path);
    if (!record || record.versions.length === 0) throw errors.notFound(`No file "${path}" in the store of ${uid}`, { path });
    return record;
  }

  return {
    async write(uid, input) {
      const path = normalizeFilePath(input.path);
      const content = decode(input.content, input.encoding);
      if (content.length > MAX_FILE_BYTES) {
        throw new CoreError('PAYLOAD_TOO_LARGE', `The file is ${content.length} bytes once decoded; the limit is ${MAX_FILE_BYTES} bytes (1 MiB)`);
      }
      const sha256 = sha256Hex(content);
      const existing = await fileRecords.byPath(uid, path);
      const known = existing?.versions.find((v) => v.sha256 === sha256);
      // Content already stored for this path is referenced, not stored again.
      const blobSeq = known?.blob_seq ?? (await blobs.put(uid, content, clock.tick())).seq;
      const now = clock.now();
      let written: StoredFileVersion | undefined;
      await fileRecords.update(uid, path, (current) => {
        const versions = current?.versions ?? [];
        written = {
          version: (versions[versions.length - 1]?.version ?? 0) + 1,
          bytes: content.length,
          sha256,
          encoding: input.encoding,
          tick: clock.tick(),
          created_at: new Date(now).toISOString(),
          blob_seq: blobSeq,
        };
        return { uid, path, versions: [...versions, written] };
      });
      return viewOf(path, written!);
    },

    async read(uid, input) {
      const path = normalizeFilePath(input.path);
      const record = await recordOf(uid, path);
      const stored = input.version === undefined ? record.versions[record.versions.length - 1]! : record.versions.find((v) => v.version === input.version);
      if (!stored) {
        throw errors.notFound(`"${path}" has no version ${input.version}; it has versions 1 to ${record.versions.length}`, { path, version: input.version });
      }
      const content = await blobs.get(uid, { seq: stored.blob_seq, sha256: stored.sha256 });
      const encoding = input.encoding ?? stored.encoding;
      return { ...viewOf(path, stored), content: encode(content, encoding, path), content_encoding: encoding };
    },

    async list(uid, input) {
      const prefix = normalizePrefix(input.prefix);
      const records = (await fileRecords.listByUid(uid)).filter((r) => r.path.startsWith(prefix) && r.versions.length > 0);
      records.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
      const { page, next_cursor } = pageOf(records, input.limit, input.cursor);
      const listed = page.map((r) => {
        const latest = r.versions[r.versions.length - 1]!;
        return { path: r.path, latest_version: latest.version, bytes: latest.bytes, sha256: latest.sha256, updated_at: latest.created_at };
      });
      return { files: listed, next_cursor };
    },

    async history(uid, input) {
      const path = normalizeFilePath(input.path);
      const record = await recordOf(uid, path);
      const newestFirst = [...record.versions].reverse();
      const { page, next_cursor } = pageOf(newestFirst, input.limit, input.cursor);
      return { path, versions: page.map((v) => viewOf(path, v)), next_cursor };
    },
  };
}

function decode(content: string, encoding: FileEncoding): Buffer {
  if (encoding === 'utf8') return Buffer.from(content, 'utf8');
  const compact = content.replace(/\s+/g, '');
  if (!BASE64.test(compact)) {
    throw errors.validation('`content` is not valid base64 (standard alphabet, with padding)', {
      issues: [{ path: 'content', message: 'invalid base64', code: 'invalid_format' }],
    });
  }
  return Buffer.from(compact, 'base64');
}

function encode(content: Buffer, encoding: FileEncoding, path: string): string {
  if (encoding === 'base64') return content.toString('base64');
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(content);
  } catch {
    throw errors.unprocessable(`"${path}" is not valid UTF-8 text; read it with encoding "base64"`, { path });
  }
}
