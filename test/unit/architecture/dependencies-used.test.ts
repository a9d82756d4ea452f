import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../../src/lib/paths.js';
import { sourceFiles } from '../../helpers/source-files.js';

// A runtime dependency nothing at runtime imports is shipped to every install for nothing.

describe('package.json dependencies', () => {
  it('are each imported by src/ or tools/', () => {
    const root = packageRoot();
    const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    const text = ['src', 'tools']
      .flatMap((d) => sourceFiles(path.join(root, d), /\.(ts|mjs)$/))
      .map((f) => readFileSync(f, 'utf8'))
      .join('\n');
    const names = Object.keys(pkg.dependencies);
    expect(names.length).toBeGreaterThan(5);
    const unused = names.filter((name) => !new RegExp(`(?:from|import\\()\\s*'${name.replace(/[/.]/g, '\\$&')}(?:/[^']*)?'`).test(text));
    expect(unused).toEqual([]);
  });
});
