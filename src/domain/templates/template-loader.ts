import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { CuratedTemplate, TemplateCategory } from './template.types.js';

export const CATEGORIES_FILE = 'categories.json';

const Kebab = z
  .string()
  .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'kebab-case')
  .max(128);
const Input = z.record(z.string(), z.unknown());

const Step = z.union([
  z.object({ transition: z.string().min(1), input: Input.default({}), expect: z.string().min(1) }).strict(),
  z.object({ event: z.string().min(1), payload: Input.default({}), expect: z.string().min(1) }).strict(),
  z.object({ fire_now: z.literal(true), expect: z.string().min(1) }).strict(),
]);

const TemplateFile = z
  .object({
    id: Kebab,
    title: z.string().min(1).max(120),
    category: Kebab,
    description: z.string().min(1).max(1000),
    uses: z.array(z.string().min(1)).min(1).max(8),
    keywords: z.array(z.string().min(1)).max(32).default([]),
    params: z
      .record(
        z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'a parameter name is an identifier'),
        z
          .object({ description: z.string().min(1), default: z.unknown(), unit: z.string().optional(), paths: z.array(z.string().min(1)).min(1).optional() })
          .strict(),
      )
      .default({}),
    definition: z.object({ name: z.string().min(1), states: z.record(z.string(), z.unknown()), transitions: z.array(z.unknown()) }).loose(),
    walkthrough: z.object({ params: Input.optional(), steps: z.array(Step).min(1) }).strict(),
  })
  .strict();

const CategoriesFile = z.object({
  categories: z.array(z.object({ id: Kebab, name: z.string().min(1), description: z.string(), templates: z.array(Kebab) }).strict()).min(1),
});

export interface LoadedTemplates {
  categories: TemplateCategory[];
  /** Templates in catalogue order: by category, then as the category lists them; unlisted ones last. */
  templates: CuratedTemplate[];
  /** Files left out and why; empty for a healthy catalogue (the templates test asserts it). */
  problems: string[];
}

/**
 * Reads `<dir>/categories.json` and every other `<dir>/*.json` as a template. A file that does not
 * parse or does not have the template shape is left out and reported in `problems`, so one bad file
 * never takes the catalogue down; a missing folder is an empty catalogue.
 */
export function loadTemplates(dir: string): LoadedTemplates {
  const problems: string[] = [];
  if (!existsSync(dir)) return { categories: [], templates: [], problems: [`no template folder at ${dir}`] };
  let categories: TemplateCategory[] = [];
  const categoriesPath = path.join(dir, CATEGORIES_FILE);
  if (existsSync(categoriesPath)) {
    const parsed = parseFile(categoriesPath, CategoriesFile, problems);
    if (parsed) categories = parsed.categories;
  } else problems.push(`${CATEGORIES_FILE}: missing`);

  const byId = new Map<string, CuratedTemplate>();
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith('.json') && f !== CATEGORIES_FILE)
    .sort()) {
    const parsed = parseFile(path.join(dir, file), TemplateFile, problems);
    if (!parsed) continue;
    if (`${parsed.id}.json` !== file) problems.push(`${file}: id "${parsed.id}" does not match the file name`);
    else if (!categories.some((c) => c.id === parsed.category)) problems.push(`${file}: unknown category "${parsed.category}"`);
    else byId.set(parsed.id, parsed as unknown as CuratedTemplate);
  }

  const ordered: CuratedTemplate[] = [];
  for (const category of categories) {
    for (const id of category.templates) {
      const template = byId.get(id);
      if (!template) problems.push(`${CATEGORIES_FILE}: category "${category.id}" lists "${id}", which is not a loaded template`);
      else if (template.category !== category.id)
        problems.push(`${CATEGORIES_FILE}: "${id}" is listed under "${category.id}" but its category is "${template.category}"`);
      else if (!ordered.includes(template)) ordered.push(template);
    }
  }
  for (const template of byId.values()) {
    if (!ordered.includes(template)) {
      problems.push(`${template.id}.json: not listed in ${CATEGORIES_FILE}`);
      ordered.push(template);
    }
  }
  return { categories, templates: ordered, problems };
}

function parseFile<T extends z.ZodType>(file: string, schema: T, problems: string[]): z.output<T> | undefined {
  const name = path.basename(file);
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    problems.push(`${name}: not JSON (${(err as Error).message})`);
    return undefined;
  }
  const result = schema.safeParse(json);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    problems.push(`${name}: ${issue.path.join('.') || '(root)'}: ${issue.message}`);
    return undefined;
  }
  return result.data;
}
