import { mkdir, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { LastOfType, LogRow, LogStore, LogTally, RowInput } from '../port.js';
import type { DiskMonitor } from './disk-monitor.js';
import { HandlePool } from './handle-pool.js';
import { LogFile, type LowdbWarning } from './log-file.js';
import { decodeStreamFile, encodeStreamName, LOG_SUFFIX } from './stream-names.js';

export interface LogStreamsOptions {
  dir: string;
  fsync: boolean;
  onWarning: ((warning: LowdbWarning) => void) | undefined;
  /** Throws unless the store is open. */
  assertOpen: () => void;
  /** Most log file handles held open at once (least recently used closed first). */
  maxOpenFiles: number;
  /** Counts the bytes written and turns disk faults into the store's refusal. */
  disk?: DiskMonitor;
}

export interface LogStreams {
  api: LogStore;
  /** Lists the stream files on disk; files themselves are opened on first use. */
  open(): Promise<void>;
  /** Waits for in-flight writes and reads, closes every handle and forgets the cache. */
  close(): Promise<void>;
}

/**
 * The log half of the lowdb store: one `LogFile` per stream, opened lazily and cached (its index and
 * head); the file handles themselves come from a bounded pool.
 */
export function createLogStreams(options: LogStreamsOptions): LogStreams {
  const { dir, fsync, onWarning, assertOpen } = options;
  const handles = new HandlePool(options.maxOpenFiles);
  let files = new Map<string, Promise<LogFile>>();
  /** Streams found on disk at open, with their file size then (a stream with rows has a non-empty file). */
  let onDisk = new Map<string, number>();

  /** The stream's file; undefined when it has none and `create` is false, so reads never create files. */
  function fileOf(stream: string, create: boolean): Promise<LogFile> | undefined {
    assertOpen();
    const cached = files.get(stream);
    if (cached !== undefined) return cached;
    const file = join(dir, encodeStreamName(stream) + LOG_SUFFIX);
    if (!create && !onDisk.has(stream)) return undefined;
    const opening = LogFile.open({ stream, file, fsync, onWarning, handles, ...(options.disk ? { disk: options.disk } : {}) });
    files.set(stream, opening);
    // A failed open (corrupt file) is not cached, so a later call reports the error again.
    opening.catch(() => files.get(stream) === opening && files.delete(stream));
    return opening;
  }

  const api: LogStore = {
    async append<R extends LogRow>(stream: string, build: (head: R | undefined, seq: number) => RowInput<R>, expect?: LastOfType) {
      const log = await fileOf(stream, true)!;
      return (await log.append(build as unknown as (head: LogRow | undefined, seq: number) => RowInput<LogRow>, expect)) as R;
    },
    async head<R extends LogRow>(stream: string) {
      return (await fileOf(stream, false))?.head() as R | undefined;
    },
    async count(stream: string) {
      return (await fileOf(stream, false))?.count() ?? 0;
    },
    async tally(streams, fromTick) {
      const tallies = new Map<string, LogTally>();
      if (Number.isNaN(fromTick)) return tallies;
      for (const stream of new Set(streams)) {
        const tally = (await fileOf(stream, false))?.tally(fromTick);
        if (tally !== undefined) tallies.set(stream, tally);
      }
      return tallies;
    },
    async countUnder(prefix) {
      let rows = 0;
      for (const stream of await api.streams(prefix)) rows += (await fileOf(stream, false))?.count() ?? 0;
      return rows;
    },
    async get<R extends LogRow>(stream: string, seq: number) {
      return (await (await fileOf(stream, false))?.get(seq)) as R | undefined;
    },
    async read<R extends LogRow>(stream: string, query = {}) {
      return ((await (await fileOf(stream, false))?.read(query)) ?? []) as R[];
    },
    async streams(prefix = '') {
      assertOpen();
      const names = new Set([...onDisk.keys(), ...files.keys()].filter((name) => name.startsWith(prefix)));
      const listed: string[] = [];
      for (const name of names) {
        const log = await files.get(name)?.catch(() => undefined);
        const hasRows = log !== undefined ? log.count() > 0 : (onDisk.get(name) ?? 0) > 0;
        if (hasRows) listed.push(name);
      }
      return listed.sort();
    },
  };

  return {
    api,
    async open() {
      await mkdir(dir, { recursive: true, mode: 0o700 });
      const found = new Map<string, number>();
      for (const entry of await readdir(dir)) {
        const stream = decodeStreamFile(entry);
        if (stream !== undefined) found.set(stream, (await stat(join(dir, entry))).size);
      }
      onDisk = found;
    },
    async close() {
      const opened = [...files.values()];
      files = new Map();
      onDisk = new Map();
      await Promise.all(
        opened.map((opening) =>
          opening.then(
            (log) => log.close(),
            () => undefined,
          ),
        ),
      );
    },
  };
}
