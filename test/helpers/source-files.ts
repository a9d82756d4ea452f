import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** Every file under `dir` (recursively) whose name matches `ext`, as absolute paths, sorted. */
export function sourceFiles(dir: string, ext: RegExp = /\.ts$/): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? sourceFiles(path.join(dir, e.name), ext) : ext.test(e.name) ? [path.join(dir, e.name)] : []))
    .sort();
}

// Static imports and re-exports, type-only ones included (`import type`, `export type ... from`), and `import('x')`.
const IMPORT = /^\s*(?:import|export)\b[^'"]*?from\s+'([^']+)'|^\s*import\s+'([^']+)'|\bimport\(\s*'([^']+)'\s*\)/gm;

/** The specifiers a file imports, as written. */
export function importSpecifiers(file: string): string[] {
  return [...readFileSync(file, 'utf8').matchAll(IMPORT)].map((m) => (m[1] ?? m[2] ?? m[3])!);
}

/** A relative specifier resolved to the `.ts` file it names (`./x.js` → `/abs/x.ts`); a package name as it is. */
export function resolveImport(from: string, spec: string): string {
  if (!spec.startsWith('.')) return spec;
  return path.resolve(path.dirname(from), spec).replace(/\.js$/, '.ts');
}
