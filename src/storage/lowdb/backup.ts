import { copyFile, mkdir, open, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { LogRow, LogStore, RowInput } from '../port.js';
import { CURSOR_KEY_FILE } from './cursor-seal.js';
import { createLowdbStore, type LowdbStore } from './lowdb.store.js';

/** Rows read and appended at a time (appends of one stream queued together share group commits). */
const PAGE = 500;

/** Written last into a backup: what it holds. A directory without it is an unfinished backup. */
export const BACKUP_MANIFEST = 'backup.json';

export interface BackupReport {
  collections: number;
  documents: number;
  streams: number;
  rows: number;
  /** Milliseconds the store's calls were held while the point in time was taken. */
  paused_ms: number;
}

/**
 * A consistent copy of a running lowdb store into `targetDir` (new or empty), taken while writes go on.
 * `pointInTime` holds the store's calls for a moment (the write gate): once every call already running
 * has settled, every document is copied in memory and every log stream's row count noted; then calls
 * resume, and the rows up to those counts (rows are never changed once written) are appended to a new
 * store in `targetDir` with their seqs. So the backup is the store as it stood at that moment, as a
 * `kill -9` then would have left it: every write acknowledged before the backup started is in it,
 * every chain is a whole prefix of its log, no record is torn. Restore: start a server on `targetDir`.
 */
export async function backupLowdb(source: LowdbStore, dataDir: string, targetDir: string): Promise<BackupReport> {
  await assertEmpty(targetDir);
  const { documents, counts, paused_ms } = await source.pointInTime();
  await mkdir(targetDir, { recursive: true, mode: 0o700 });
  // Cursors handed out before the backup stay valid on the restored node.
  await copyFile(join(dataDir, CURSOR_KEY_FILE), join(targetDir, CURSOR_KEY_FILE)).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'ENOENT') throw err;
  });
  const target = createLowdbStore({ dataDir: targetDir, fsync: false });
  await target.open();
  const report: BackupReport = { collections: 0, documents: 0, streams: 0, rows: 0, paused_ms };
  try {
    for (const [collection, entries] of documents) {
      for (const [id, value] of entries) await target.docs.insert(collection, id, value);
      report.collections += 1;
      report.documents += entries.length;
    }
    for (const [stream, count] of counts) {
      report.rows += await copyRows(source.logs, target.logs, stream, count);
      report.streams += 1;
    }
  } finally {
    await target.close();
  }
  // Written without a sync per call (fsync off above): made durable at once here, the manifest last.
  await syncTree(targetDir);
  const manifest = join(targetDir, BACKUP_MANIFEST);
  const handle = await open(manifest, 'w', 0o600);
  try {
    await handle.writeFile(`${JSON.stringify({ taken_at: new Date().toISOString(), ...report })}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await syncPath(targetDir);
  return report;
}

/** Appends rows 0 .. count-1 of `stream` to the target with the same seqs. */
async function copyRows(from: Pick<LogStore, 'read'>, to: Pick<LogStore, 'append'>, stream: string, count: number): Promise<number> {
  let copied = 0;
  for (let seq = 0; seq < count; seq += PAGE) {
    const rows = await from.read<LogRow>(stream, { fromSeq: seq, toSeq: Math.min(seq + PAGE, count) - 1 });
    await Promise.all(
      rows.map((row) =>
        to.append(stream, (_head, at) => {
          if (at !== row.seq) throw new Error(`log ${stream}: the backup gave seq ${at} to row ${row.seq}`);
          const { seq: _seq, ...rest } = row;
          return rest as RowInput<LogRow>;
        }),
      ),
    );
    copied += rows.length;
  }
  return copied;
}

async function assertEmpty(dir: string): Promise<void> {
  const entries = await readdir(dir).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return [] as string[];
    throw err;
  });
  if (entries.length > 0) throw new Error(`the backup target ${dir} is not empty: give a new or empty directory`);
}

async function syncPath(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function syncTree(dir: string): Promise<void> {
  for (const entry of await readdir(dir)) {
    const path = join(dir, entry);
    if ((await stat(path)).isDirectory()) await syncTree(path);
    else await syncPath(path);
  }
  await syncPath(dir);
}
