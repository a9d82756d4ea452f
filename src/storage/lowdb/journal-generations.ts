import { readdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { syncDir } from './fsync-path.js';

/**
 * A collection's journal comes in generations. `<name>.jsonl` is generation 0, the file earlier
 * versions wrote; each compaction starts writing `<name>.<n>.jsonl` (n one higher) and, once the
 * snapshot holding everything before it is durable, removes the older ones. Replaying the generations
 * left on disk in order over the snapshot gives the collection at any point of that cycle.
 */
export function journalFile(dir: string, name: string, generation: number): string {
  return join(dir, generation === 0 ? `${name}.jsonl` : `${name}.${generation}.jsonl`);
}

/** The generations of `name` on disk, oldest first (none: the collection never wrote a journal). */
export async function journalGenerations(dir: string, name: string): Promise<number[]> {
  const files = await readdir(dir).catch(() => [] as string[]);
  const generations: number[] = [];
  for (const file of files) {
    if (file === `${name}.jsonl`) generations.push(0);
    else if (file.startsWith(`${name}.`) && file.endsWith('.jsonl')) {
      const middle = file.slice(name.length + 1, -'.jsonl'.length);
      // Only `<name>.<n>.jsonl`: another collection's name may start with this one's and a dot never.
      if (/^[1-9]\d{0,15}$/.test(middle)) generations.push(Number(middle));
    }
  }
  return generations.sort((a, b) => a - b);
}

/**
 * Removes the given generations oldest first, so that a failure part way leaves a suffix of them: a
 * suffix replays over the new snapshot to the same records (its last line per id is what the snapshot
 * holds), where a gap would replay stale values.
 */
export async function removeGenerations(dir: string, name: string, generations: readonly number[], fsync: boolean): Promise<void> {
  for (const generation of [...generations].sort((a, b) => a - b)) {
    await unlink(journalFile(dir, name, generation)).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
    });
  }
  if (fsync) await syncDir(dir);
}
