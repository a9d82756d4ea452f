import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { sha256Hex } from '../../lib/hash.js';

/** One skill of the catalogue: a Markdown file with `name` and `description` front matter. */
export interface CatalogueSkill {
  name: string;
  description: string;
  /** The whole file, front matter included: exactly what attach persists. */
  body: string;
  bytes: number;
  sha256: string;
}

const NAME = /^[a-z0-9][a-z0-9-]*$/;

/** Reads `name` and `description` from a `---` front matter block; throws when either is missing. */
export function parseFrontMatter(text: string, file: string): { name: string; description: string } {
  const match = /^---\r?\n([\s\S]*?)\r?\n---\r?\n/.exec(text);
  if (!match) throw new Error(`${file}: missing front matter (--- name / description ---)`);
  const fields: Record<string, string> = {};
  for (const line of match[1]!.split(/\r?\n/)) {
    const kv = /^([a-z_]+):\s*(.*)$/.exec(line);
    if (kv) fields[kv[1]!] = kv[2]!.replace(/^(["'])(.*)\1$/, '$2').trim();
  }
  const { name, description } = fields;
  if (!name || !NAME.test(name)) throw new Error(`${file}: front matter needs a \`name\` of lowercase letters, digits and "-"`);
  if (!description) throw new Error(`${file}: front matter needs a \`description\``);
  return { name, description };
}

/** Loads every `*.md` of a folder as a skill; a skill's name must equal its file name. Sorted by name. */
export async function loadCatalogue(dir: string): Promise<CatalogueSkill[]> {
  const files = (await readdir(dir)).filter((f) => f.endsWith('.md') && f !== 'README.md').sort();
  const skills: CatalogueSkill[] = [];
  for (const file of files) {
    const body = await readFile(path.join(dir, file), 'utf8');
    const { name, description } = parseFrontMatter(body, file);
    if (`${name}.md` !== file) throw new Error(`${file}: the skill's name "${name}" must match its file name`);
    skills.push({ name, description, body, bytes: Buffer.byteLength(body), sha256: sha256Hex(body) });
  }
  return skills;
}
