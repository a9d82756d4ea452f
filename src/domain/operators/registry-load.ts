import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { CategoryFile, OperatorDef } from './operator.types.js';

/** The registry as loaded from the data files, indexed for lookups and text search. */
export interface LoadedRegistry {
  /** Every operator, categories in key order, each category in file order. */
  operators: OperatorDef[];
  byId: Map<string, OperatorDef>;
  categories: Array<{ category: string; title: string; group: string; count: number }>;
  /** The parsed files, in category order: what `registry_version` digests. */
  files: CategoryFile[];
  /** Files or operators that could not be used, each with the reason; the rest still loads. */
  problems: string[];
  loadMs: number;
}

/**
 * Reads every `*.json` in `dir`. A file that does not parse, or an operator whose id is taken, is
 * skipped and reported in `problems` rather than stopping the server: one bad file should not take
 * the other categories down (the registry test fails on any problem).
 */
export function loadRegistry(dir: string): LoadedRegistry {
  const started = performance.now();
  const problems: string[] = [];
  let names: string[] = [];
  try {
    names = readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .sort();
  } catch (err) {
    problems.push(`${dir}: cannot read the operator directory (${(err as Error).message})`);
  }
  const files: CategoryFile[] = [];
  for (const name of names) {
    try {
      const data = JSON.parse(readFileSync(path.join(dir, name), 'utf8')) as CategoryFile;
      if (typeof data.category !== 'string' || !Array.isArray(data.operators)) throw new Error('needs `category` and `operators`');
      files.push(data);
    } catch (err) {
      problems.push(`${name}: skipped: ${(err as Error).message}`);
    }
  }
  files.sort((a, b) => (a.category < b.category ? -1 : a.category > b.category ? 1 : 0));

  const operators: OperatorDef[] = [];
  const byId = new Map<string, OperatorDef>();
  const categories: LoadedRegistry['categories'] = [];
  for (const file of files) {
    let count = 0;
    for (const raw of file.operators) {
      const problem = shapeProblem(raw);
      if (problem) {
        problems.push(`${file.category}: operator ${String((raw as { id?: unknown }).id)} skipped: ${problem}`);
        continue;
      }
      if (byId.has(raw.id)) {
        problems.push(`${file.category}: operator ${raw.id} skipped: id already used in ${byId.get(raw.id)!.category}`);
        continue;
      }
      const op: OperatorDef = { ...raw, category: file.category };
      byId.set(op.id, op);
      operators.push(op);
      count += 1;
    }
    categories.push({ category: file.category, title: file.title ?? file.category, group: file.group ?? '', count });
  }
  return { operators, byId, categories, files, problems, loadMs: performance.now() - started };
}

function shapeProblem(op: Partial<OperatorDef>): string | undefined {
  if (typeof op.id !== 'string' || !/^[A-Z][A-Z0-9_]*(\.[0-9]+)?$/.test(op.id)) return 'bad id';
  if (typeof op.expression !== 'string' || typeof op.name !== 'string') return 'needs a name and an expression';
  if (!Array.isArray(op.inputs) || !op.inputs.every((i) => typeof i?.name === 'string' && typeof i.unit === 'string')) {
    return 'inputs need a name and a unit';
  }
  if (typeof op.output?.unit !== 'string') return 'output needs a unit';
  return undefined;
}
