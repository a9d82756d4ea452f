import { open, readFile, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { syncDir } from './fsync-path.js';

/**
 * What a data directory says about the build that wrote it, so an older build never runs on a layout it
 * does not understand (after an upgrade is rolled back, or a directory copied from a newer node).
 * `format` is the layout's version; `writable_from` the oldest format a build may know and still keep
 * every promise on this directory. A build raises `format` when it changes the layout, and keeps
 * `writable_from` low only when older builds still read and write the new layout correctly.
 */
export const DATA_FORMAT_FILE = 'format.json';

/** The layout this build writes: snapshots plus journal generations for documents, JSON-lines logs. */
export const DATA_FORMAT = 1;
/** The oldest format whose builds may write what this build writes. */
export const WRITABLE_FROM = 1;

interface DataFormat {
  format: number;
  writable_from: number;
}

/**
 * Reads the directory's format marker, refusing (one line: why, and what to do) a directory that a
 * newer build wrote and does not let this one write; writes the marker when missing (a new directory,
 * or one written before markers, which is format 1). Called at open, under the directory lock.
 */
export async function checkDataFormat(dataDir: string, options: { fsync: boolean }): Promise<void> {
  const file = join(dataDir, DATA_FORMAT_FILE);
  const text = await readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return undefined;
    throw err;
  });
  if (text === undefined) {
    await writeMarker(dataDir, { format: DATA_FORMAT, writable_from: WRITABLE_FROM }, options.fsync);
    return;
  }
  const marker = parse(text);
  if (marker === undefined) {
    throw new Error(
      `The data directory ${dataDir} has an unreadable ${DATA_FORMAT_FILE}; restore it from a backup or remove it if this directory was written by this version`,
    );
  }
  if (marker.format > DATA_FORMAT && marker.writable_from > DATA_FORMAT) {
    throw new Error(
      `The data directory ${dataDir} is in format ${marker.format}, newer than this server knows (${DATA_FORMAT}), and only servers that know format ${marker.writable_from} or later may write it: run the newer server, or restore a backup taken before the upgrade`,
    );
  }
}

function parse(text: string): DataFormat | undefined {
  try {
    const value = JSON.parse(text) as Partial<DataFormat> | null;
    if (value && Number.isInteger(value.format) && Number.isInteger(value.writable_from)) return value as DataFormat;
  } catch {
    // Reported by the caller.
  }
  return undefined;
}

/** Written whole to a temporary file and renamed, so a crash never leaves half a marker. */
async function writeMarker(dataDir: string, marker: DataFormat, fsync: boolean): Promise<void> {
  const file = join(dataDir, DATA_FORMAT_FILE);
  const temp = `${file}.tmp`;
  const handle = await open(temp, 'w', 0o600);
  try {
    await handle.writeFile(`${JSON.stringify(marker)}\n`);
    if (fsync) await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temp, file);
  if (fsync) await syncDir(dataDir);
}
