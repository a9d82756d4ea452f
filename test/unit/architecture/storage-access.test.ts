import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { sourceFiles } from '../../helpers/source-files.js';

/**
 * The layering rule: only the storage adapters and the repositories touch the storage port's
 * documents and logs. A service that reads `store.docs` directly names a collection some repository
 * owns, and the repository can no longer keep its indexes, types and queries in one place.
 */
const root = fileURLToPath(new URL('../../../src', import.meta.url));

/** Files that may reach the port's documents and logs: the adapters, the port itself, and repositories. */
function mayTouchPort(file: string): boolean {
  return file.startsWith(`storage${path.sep}`) || file.endsWith('-repository.ts');
}

/** A use of the port's documents or logs: `x.docs.get(`, `store.logs`, `{ docs } = store`, a `DocStore`/`LogStore` type. */
const PORT_USE = [/\.(docs|logs)\b\s*[.;,)]/, /\{[^}]*\b(docs|logs)\b[^}]*\}\s*=\s*[\w.]*store\b/i, /\b(DocStore|LogStore)\b/];

describe('storage layering', () => {
  it('lets only src/storage and *-repository.ts files touch the store’s documents and logs', () => {
    const offenders = sourceFiles(root)
      .map((file) => path.relative(root, file))
      .filter((file) => !mayTouchPort(file))
      .flatMap((file) =>
        readFileSync(path.join(root, file), 'utf8')
          .split('\n')
          .map((line, i) => ({ line, at: `src/${file}:${i + 1}` }))
          .filter(({ line }) => !/^\s*(\/\/|\*|\/\*)/.test(line) && PORT_USE.some((re) => re.test(line)))
          .map(({ at, line }) => `${at}: ${line.trim()}`),
      );
    expect(offenders).toEqual([]);
  });

  it('finds a direct document read in a service file (the rule can fail)', () => {
    const line = "    const row = await deps.store.docs.get<Machine>('machines', slug);";
    expect(PORT_USE.some((re) => re.test(line))).toBe(true);
    expect(mayTouchPort(path.join('domain', 'chain', 'machines.service.ts'))).toBe(false);
    expect(mayTouchPort(path.join('domain', 'chain', 'machine-repository.ts'))).toBe(true);
  });
});
