import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../../src/lib/paths.js';
import { importSpecifiers, resolveImport, sourceFiles } from '../../helpers/source-files.js';

/**
 * A cycle, even one closed only by type imports, means no file in it can be read, tested or moved
 * without the others: the registry would depend on the whole domain. Type-only imports count.
 */
function importGraph(files: string[]): Map<string, string[]> {
  const known = new Set(files);
  return new Map(
    files.map((f) => [
      f,
      importSpecifiers(f)
        .map((s) => resolveImport(f, s))
        .filter((t) => known.has(t)),
    ]),
  );
}

/** Strongly connected components with more than one file, or a file importing itself (Tarjan). */
export function cyclesOf(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || graph.get(v)!.includes(v)) found.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

describe('imports', () => {
  it('form no cycle in src/ and tools/, type imports included', () => {
    const root = packageRoot();
    const files = ['src', 'tools'].flatMap((d) => sourceFiles(path.join(root, d)));
    expect(files.length).toBeGreaterThan(300);
    const cycles = cyclesOf(importGraph(files)).map((c) => c.map((f) => path.relative(root, f)));
    expect(cycles).toEqual([]);
  });

  it('finds a cycle, a self-import, and none in a chain (the check can fail)', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', ['d']],
      ['e', ['a']],
    ]);
    expect(cyclesOf(graph)).toEqual([['a', 'b', 'c'], ['d']]);
    expect(
      cyclesOf(
        new Map([
          ['x', ['y']],
          ['y', []],
        ]),
      ),
    ).toEqual([]);
  });

  it('reads type-only imports and re-exports as edges', () => {
    const self = path.join(packageRoot(), 'test', 'unit', 'architecture', 'import-cycles.test.ts');
    expect(importSpecifiers(self)).toContain('../../helpers/source-files.js');
    expect(resolveImport(self, '../../helpers/source-files.js')).toBe(path.join(packageRoot(), 'test', 'helpers', 'source-files.ts'));
  });
});
