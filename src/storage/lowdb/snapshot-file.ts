import { open, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { syncDir } from './fsync-path.js';

/** Records serialised between two turns of the event loop. */
const CHUNK = 1_000;

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** `[id, value]` pairs of a collection, in the order they are to be written. */
export type SnapshotEntries = ReadonlyArray<readonly [id: string, value: object]>;

/**
 * Copies the records of `records` (id to entry) into an array, a chunk per turn of the event loop, so
 * capturing a large collection never stalls the process. The caller keeps the map unchanged meanwhile.
 */
export async function captureEntries<E extends { value: object }>(records: ReadonlyMap<string, E>): Promise<Array<[string, object]>> {
  const entries: Array<[string, object]> = [];
  for (const [id, entry] of records) {
    entries.push([id, entry.value]);
    if (entries.length % (CHUNK * 10) === 0) await nextTurn();
  }
  return entries;
}

/**
 * Writes a collection snapshot in exactly the text lowdb's `JSONFile` writes (`JSON.stringify(data,
 * null, 2)` of `{ [id]: value }`), which `JSONFile` reads back. lowdb stringifies the whole collection
 * in one synchronous call, stalling the event loop for the time it takes (about 0.2 s at 100,000
 * records); this writes it a chunk of records per turn. Atomic as lowdb's writer is: a temp file beside
 * it, then a rename; with `fsync`, the file before the rename and the directory after it.
 */
export async function writeSnapshotFile(file: string, entries: SnapshotEntries, fsync: boolean): Promise<number> {
  const temp = join(dirname(file), `.${basename(file)}.tmp`);
  try {
    return await writeAndRename(temp, file, entries, fsync);
  } catch (error) {
    // A half-written temp file on a full disk holds the space a retry needs: remove it.
    await unlink(temp).catch(() => undefined);
    throw error;
  }
}

/** The bytes written. */
async function writeAndRename(temp: string, file: string, entries: SnapshotEntries, fsync: boolean): Promise<number> {
  const fh = await open(temp, 'w', 0o600);
  let bytes = 0;
  try {
    if (entries.length === 0) await fh.writeFile('{}');
    else await fh.writeFile('{\n');
    bytes += 2;
    for (let i = 0; i < entries.length; i += CHUNK) {
      const text = entries
        .slice(i, i + CHUNK)
        .map(([id, value]) => `  ${JSON.stringify(id)}: ${JSON.stringify(value, null, 2).replaceAll('\n', '\n  ')}`)
        .join(',\n');
      const chunk = i + CHUNK < entries.length ? `${text},\n` : `${text}\n}`;
      await fh.writeFile(chunk);
      bytes += Buffer.byteLength(chunk);
    }
    if (fsync) await fh.datasync();
  } finally {
    await fh.close();
  }
  await rename(temp, file);
  if (fsync) await syncDir(dirname(file));
  return bytes;
}
