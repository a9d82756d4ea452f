import { chmod, lstat, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

/** Logged when a start made paths private: what happened and what the operator should weigh. */
export const MADE_PRIVATE_MESSAGE =
  'data directory made private: it was readable by other local users; if they may have read it, treat the node signing and receipt keys as exposed';

/** Files looked at together (one `lstat` each, a `chmod` for a loose one): enough to keep the thread pool busy. */
const WALK_BATCH = 64;

/**
 * Makes a data directory private to its owner: removes every group and other permission bit from the
 * directory and everything under it (symbolic links are not followed: their targets are not ours).
 * The directory holds the node's signing and receipt keys, so a group- or world-readable file is
 * anyone-can-become-anyone. Returns the paths it changed. A path this process may not change (owned by
 * another user) refuses the start with the command that fixes it, run as the owner.
 */
export async function makeDataDirPrivate(dataDir: string): Promise<string[]> {
  const changed: string[] = [];
  const pending = [dataDir];
  while (pending.length > 0) {
    const dir = pending.pop()!;
    await tighten(dataDir, dir, changed);
    const files: string[] = [];
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) pending.push(join(dir, entry.name));
      else if (entry.isFile()) files.push(join(dir, entry.name));
    }
    // A few at a time: a data directory holds one file per log stream, thousands of them.
    for (let i = 0; i < files.length; i += WALK_BATCH) await Promise.all(files.slice(i, i + WALK_BATCH).map((file) => tighten(dataDir, file, changed)));
  }
  return changed;
}

async function tighten(dataDir: string, file: string, changed: string[]): Promise<void> {
  // The directory itself may be a link to where the data lives; below it, links are not followed.
  const { mode } = await (file === dataDir ? stat(file) : lstat(file));
  if ((mode & 0o077) === 0) return;
  try {
    await chmod(file, mode & 0o7700);
  } catch (err) {
    throw new Error(
      `${file} in the data directory is readable by other users and this process may not change it (${(err as NodeJS.ErrnoException).code}); run, as its owner: chmod -R go-rwx ${dataDir}`,
      { cause: err },
    );
  }
  changed.push(file);
}
