import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { journalFile, journalGenerations } from '../../src/storage/lowdb/journal-generations.js';

/**
 * Everything a lowdb data directory holds for one document collection, as text: its snapshot
 * (`<name>.json`) and every generation of its journal, for tests that check what reaches the disk (a
 * secret stored only hashed, say). Throws when no file exists, so such a check cannot pass on nothing.
 */
export async function storedDocText(dataDir: string, collection: string): Promise<string> {
  const dir = join(dataDir, 'docs');
  const read = (file: string) => readFile(file, 'utf8').catch(() => undefined);
  const files = [join(dir, `${collection}.json`), ...(await journalGenerations(dir, collection)).map((g) => journalFile(dir, collection, g))];
  const parts = (await Promise.all(files.map(read))).filter((t): t is string => t !== undefined);
  if (parts.length === 0) throw new Error(`no stored files for collection ${collection} in ${dataDir}`);
  return parts.join('\n');
}
