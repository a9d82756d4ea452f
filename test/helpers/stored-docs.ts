import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Everything a lowdb data directory holds for one document collection, as text: its snapshot
 * (`<name>.json`) and its journal (`<name>.jsonl`), for tests that check what reaches the disk (a
 * secret stored only hashed, say). Throws when neither file exists, so such a check cannot pass on nothing.
 */
export async function storedDocText(dataDir: string, collection: string): Promise<string> {
  const read = (file: string) => readFile(join(dataDir, 'docs', file), 'utf8').catch(() => undefined);
  const parts = [await read(`${collection}.json`), await read(`${collection}.jsonl`)].filter((t): t is string => t !== undefined);
  if (parts.length === 0) throw new Error(`no stored files for collection ${collection} in ${dataDir}`);
  return parts.join('\n');
}
