import { join } from 'node:path';
import type { Store } from '../port.js';
import { CURSOR_KEY_FILE } from './cursor-seal.js';
import { createDocCollections } from './doc-collections.js';
import type { LowdbWarning } from './log-file.js';
import { createStoreLifecycle } from '../lifecycle.js';
import { createLogStreams } from './log-streams.js';
import { lockDataDir } from './dir-lock.js';
import { checkDataFormat } from './data-format.js';
import { MADE_PRIVATE_MESSAGE, makeDataDirPrivate } from './private-dir.js';
import { createLocalLocks, createLocalPubSub } from '../local-coordination.js';
import { createWriteGate } from '../write-gate.js';
import { DiskMonitor } from './disk-monitor.js';

export type { LowdbWarning } from './log-file.js';

/**
 * Free space kept back by default: the store reports itself unready (new writes refused with 503) below
 * it, so writes already under way never meet a full disk between two of their own files.
 */
export const DEFAULT_DISK_RESERVE_BYTES = 16 * 1024 * 1024;

/** Well under the usual 1,024 descriptor limit, with room for sockets; far above the streams a request touches. */
export const DEFAULT_MAX_OPEN_LOG_FILES = 256;

export interface LowdbStoreOptions {
  /** Root folder: documents go to `<dataDir>/docs`, logs to `<dataDir>/logs`. */
  dataDir: string;
  /**
   * When true (the default) a write resolves only once it is on the disk: one fdatasync per log
   * batch, and a file and directory sync after each document write.
   */
  fsync?: boolean;
  /** Told about repairs made at open (a torn last log line dropped, a directory other users could read made private). */
  onWarning?: (warning: LowdbWarning) => void;
  /**
   * Most log files held open at once (default 256): a stream's handle is opened on use and the least
   * recently used idle one closed beyond this, so thousands of streams never exhaust descriptors.
   */
  maxOpenLogFiles?: number;
  /** Free bytes under which the `disk` check goes down (default `DEFAULT_DISK_RESERVE_BYTES`; 0: only a failed write). */
  diskReserveBytes?: number;
  /** Tests: how the free space of the data directory's volume is read (default `statfs`). */
  freeBytes?: (dir: string) => Promise<number>;
}

/**
 * The embedded store: document collections as lowdb snapshots plus append-only journals with in-memory
 * indexes, and logs as append-only JSON-lines files with an in-memory index; both group commit. One
 * process per `dataDir`.
 */
/** The embedded store, with what copying it elsewhere needs beyond the port: the ids of the documents. */
export interface LowdbStore extends Store {
  readonly backend: 'lowdb';
  /** Names of the document collections stored. */
  docCollections(): Promise<string[]>;
  /** Every record of a collection with its id, in insertion order. */
  docEntries(collection: string): Promise<Array<[id: string, value: object]>>;
  /**
   * The store at one moment, for a backup while it runs: calls are held until every call already
   * running has settled, then every document is copied and every log's row count noted, then calls
   * go on. Rows below those counts never change, so they can be read afterwards.
   */
  pointInTime(): Promise<LowdbPointInTime>;
}

/** What `pointInTime` took: documents by collection, row counts by stream, and how long calls were held. */
export interface LowdbPointInTime {
  documents: Array<[collection: string, entries: Array<[id: string, value: object]>]>;
  counts: Array<[stream: string, rows: number]>;
  paused_ms: number;
}

export function createLowdbStore(options: LowdbStoreOptions): LowdbStore {
  const fsync = options.fsync ?? true;
  let unlock: (() => Promise<void>) | undefined;
  const release = async () => {
    await unlock?.();
    unlock = undefined;
  };
  const disk = new DiskMonitor({
    dir: options.dataDir,
    reserveBytes: options.diskReserveBytes ?? DEFAULT_DISK_RESERVE_BYTES,
    ...(options.freeBytes ? { freeBytes: options.freeBytes } : {}),
  });
  const lifecycle = createStoreLifecycle({
    open: async () => {
      unlock = await lockDataDir(options.dataDir);
      // The directory is ours (we hold its lock) and holds the node's keys: private before anything is read.
      const loose = await makeDataDirPrivate(options.dataDir);
      if (loose.length > 0)
        options.onWarning?.({ message: `${MADE_PRIVATE_MESSAGE} (${loose.length} paths)`, stream: '', file: options.dataDir, droppedBytes: 0 });
      await checkDataFormat(options.dataDir, { fsync });
      await Promise.all([docs.open(), logs.open()]);
      await disk.open();
    },
    abort: async () => {
      disk.close();
      await release();
    },
    close: async () => {
      disk.close();
      try {
        await Promise.all([docs.close(), logs.close()]);
      } finally {
        await release();
      }
    },
  });
  const { assertOpen } = lifecycle;
  const docs = createDocCollections({
    dir: join(options.dataDir, 'docs'),
    cursorKeyFile: join(options.dataDir, CURSOR_KEY_FILE),
    fsync,
    assertOpen,
    onWarning: options.onWarning,
    disk,
  });
  const logs = createLogStreams({
    dir: join(options.dataDir, 'logs'),
    fsync,
    onWarning: options.onWarning,
    assertOpen,
    maxOpenFiles: options.maxOpenLogFiles ?? DEFAULT_MAX_OPEN_LOG_FILES,
    disk,
  });

  // Held by `pointInTime`; inside the lifecycle's guard, so close still waits for held calls.
  const gate = createWriteGate();
  async function pointInTime(): Promise<LowdbPointInTime> {
    const resume = await gate.pause();
    const started = performance.now();
    try {
      const documents: LowdbPointInTime['documents'] = [];
      for (const collection of await docs.names()) documents.push([collection, await docs.entries(collection)]);
      const counts: LowdbPointInTime['counts'] = [];
      for (const stream of await logs.api.streams()) counts.push([stream, await logs.api.count(stream)]);
      return { documents, counts, paused_ms: Math.round(performance.now() - started) };
    } finally {
      resume();
    }
  }

  return {
    backend: 'lowdb',
    docs: lifecycle.guard(gate.guard(docs.api)),
    logs: lifecycle.guard(gate.guard(logs.api)),
    ...lifecycle.guard({ docCollections: () => docs.names(), docEntries: (collection: string) => docs.entries(collection), pointInTime }),
    locks: createLocalLocks(),
    pubsub: createLocalPubSub(),
    open: lifecycle.open,
    close: lifecycle.close,
    isOpen: lifecycle.isOpen,
    // Ready while open and the disk takes writes: a full disk (or one under the reserve) makes it unready,
    // and the disk monitor's recheck makes it ready again once space is freed.
    status: () => {
      const check = disk.check();
      return { ready: lifecycle.isOpen() && check.ok, checks: { disk: check } };
    },
  };
}
