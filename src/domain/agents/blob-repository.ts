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
export interface BlobRepository {
  /** Appends the content at `tick`; resolves once it is durable. */
  put(uid: string, content: Buffer, tick: number): Promise<BlobRef>;
  /** The content, or throws when the row is missing or does not match its digest. */
  get(uid: string, ref: Pick<BlobRef, 'seq' | 'sha256'>): Promise<Buffer>;
}

const blobStream = (uid: string) => `agent-blobs/${uid}`;

/** The agents' blob logs: the only module that names them. */
export function createBlobRepository(store: Store): BlobRepository {
  return {
    async put(uid, content, tick) {
      const sha256 = sha256Hex(content);
      const row = await store.logs.append<BlobRow>(blobStream(uid), () => ({
        type: 'blob',
        tick,
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
