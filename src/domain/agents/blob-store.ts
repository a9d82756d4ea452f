import type { Clock } from '../../lib/clock.js';
import { sha256Hex } from '../../lib/hash.js';
import type { LogRow, Store } from '../../storage/port.js';

/** Where a blob lives: its row in the agent's blob log, and the SHA-256 that row must match. */
export interface BlobRef {
  seq: number;
  sha256: string;
  bytes: number;
}

interface BlobRow extends LogRow {
  type: 'blob';
  sha256: string;
  bytes: number;
  /** Content, base64. */
  data: string;
}

/**
 * Immutable content of one agent (file versions, plan bodies, attached skills), kept in an append-only
 * log per agent so that documents hold only small references and never the content itself. A blob is
 * addressed by its seq and checked against its SHA-256 on every read.
 */
export interface BlobStore {
  put(uid: string, content: Buffer): Promise<BlobRef>;
  /** The content, or throws when the row is missing or does not match its digest. */
  get(uid: string, ref: Pick<BlobRef, 'seq' | 'sha256'>): Promise<Buffer>;
}

export function blobStream(uid: string): string {
  return `agent-blobs/${uid}`;
}

export function createBlobStore(deps: { store: Store; clock: Clock }): BlobStore {
  const { store, clock } = deps;
  return {
    async put(uid, content) {
      const sha256 = sha256Hex(content);
      const row = await store.logs.append<BlobRow>(blobStream(uid), () => ({
        type: 'blob',
        tick: clock.tick(),
        sha256,
        bytes: content.length,
        data: content.toString('base64'),
      }));
      return { seq: row.seq, sha256, bytes: content.length };
    },
    async get(uid, ref) {
      const row = await store.logs.get<BlobRow>(blobStream(uid), ref.seq);
      const content = row ? Buffer.from(row.data, 'base64') : undefined;
      if (!content || row!.sha256 !== ref.sha256 || sha256Hex(content) !== ref.sha256) {
        throw new Error(`blob ${ref.seq} of ${uid} is missing or does not match ${ref.sha256}`);
      }
      return content;
    },
  };
}
