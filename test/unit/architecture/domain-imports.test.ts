import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../../src/lib/paths.js';

const domainDir = path.join(packageRoot(), 'src', 'domain');
const IMPORT = /^\s*(?:import|export)\b[^'"]*?from\s+'([^']+)'/gm;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : [],
  );
}

/** Every module a domain file imports, as a path relative to src/ (or the package name). */
function importsOf(file: string): string[] {
  return [...readFileSync(file, 'utf8').matchAll(IMPORT)].map(([, spec]) =>
    spec!.startsWith('.') ? path.relative(path.join(packageRoot(), 'src'), path.resolve(path.dirname(file), spec!)) : spec!,
  );
}

describe('the domain layer', () => {
  it('imports neither the pipeline, the transports, the application layer, the composition nor a transport library', () => {
    const files = sourceFiles(domainDir);
    expect(files.length).toBeGreaterThan(100);
    const outward = files.flatMap((file) =>
      importsOf(file)
        .filter((to) => /^(pipeline|transports|application)\/|^compose\.js$|^express$|^@modelcontextprotocol\//.test(to))
        .map((to) => `${path.relative(domainDir, file)} -> ${to}`),
    );
    expect(outward).toEqual([]);
  });
});
