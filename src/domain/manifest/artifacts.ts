import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';

/** A file the update manifest lists, digested as it is on disk. */
export interface ArtifactFile {
  /** Path inside its folder (`catalog/` or `resources/`), e.g. `skills/getting-started.md`. */
  name: string;
  /** Path inside the server package, e.g. `resources/skills/getting-started.md`. */
  path: string;
  sha256: string;
  size_bytes: number;
}

/** The folders whose files are the node's distributable artifacts: generated catalogue, registry data, skills, kernel. */
export const ARTIFACT_FOLDERS = ['catalog', 'resources'] as const;

/**
 * Every regular file under the artifact folders of `root`, sorted by path, with its SHA-256. Hidden
 * files and symbolic links are skipped, so nothing outside the folders is ever read.
 */
export async function scanArtifacts(root: string): Promise<ArtifactFile[]> {
  const out: ArtifactFile[] = [];
  for (const folder of ARTIFACT_FOLDERS) {
    for (const rel of await walk(path.join(root, folder), '')) {
      const bytes = await readFile(path.join(root, folder, rel));
      const name = rel.split(path.sep).join('/');
      out.push({ name, path: `${folder}/${name}`, sha256: createHash('sha256').update(bytes).digest('hex'), size_bytes: bytes.length });
    }
  }
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

async function walk(dir: string, prefix: string): Promise<string[]> {
  let entries;
  try {
    entries = await readdir(path.join(dir, prefix), { withFileTypes: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  const files: string[] = [];
  for (const entry of entries) {
    if (entry.name.startsWith('.')) continue;
    const rel = path.join(prefix, entry.name);
    if (entry.isDirectory()) files.push(...(await walk(dir, rel)));
    else if (entry.isFile()) files.push(rel);
  }
  return files;
}
