import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../../src/lib/paths.js';
import { resolveImport, sourceFiles } from '../../helpers/source-files.js';

/**
 * The storage rule by types: a service is handed the repositories it uses (built once in
 * `compose-repositories.ts`) and, where it needs them, the store's locks, messages or health, each
 * under its own narrow type (`LockStore`, `PubSub`, `StoreHealth`). Only a repository names the whole
 * `Store`, so a service that wants a collection no repository offers does not compile until one does.
 * The regex test of `storage-access.test.ts` stays as the backstop for what types cannot see.
 *
 * No file of these layers is allowed the `Store` type: outside them only the composition root
 * (`src/compose*.ts`) and the commands that open stores themselves (backup, migration) name it.
 */
const root = packageRoot();
const port = path.join(root, 'src', 'storage', 'port.ts');
const LAYERS = ['src/domain', 'src/registry', 'src/pipeline', 'src/transports', 'src/application', 'tools'];

/** Repositories turn the store into typed reads and writes: they are the files that take it. */
const mayNameStore = (file: string): boolean => file.endsWith('-repository.ts');

/** Named imports and re-exports, over several lines too: `import type { A, B } from '...'`, `export { type A } from '...'`. */
const NAMED = /^\s*(?:import|export)\s+(?:type\s+)?\{([^}]*)\}\s*from\s*'([^']+)'/gm;

/** The names a file imports from the storage port (`type` keywords and `as` renames taken off). */
function portNames(file: string, text: string): string[] {
  return [...text.matchAll(NAMED)]
    .filter((m) => resolveImport(file, m[2]!) === port)
    .flatMap((m) => m[1]!.split(','))
    .map((spec) =>
      spec
        .replace(/^\s*type\s+/, '')
        .split(/\s+as\s+/)[0]!
        .trim(),
    )
    .filter(Boolean);
}

describe('the Store type', () => {
  it('is imported by no domain, registry, pipeline, transport, application or tool file but a repository', () => {
    const files = LAYERS.flatMap((dir) => sourceFiles(path.join(root, dir)));
    expect(files.length).toBeGreaterThan(200);
    const offenders = files
      .filter((file) => !mayNameStore(file))
      .filter((file) => portNames(file, readFileSync(file, 'utf8')).includes('Store'))
      .map((file) => path.relative(root, file));
    expect(offenders).toEqual([]);
  });

  it('finds a Store import in a service file, over several lines and beside other names (the rule can fail)', () => {
    const file = path.join(root, 'src', 'domain', 'chain', 'machines.service.ts');
    const text = "import {\n  DuplicateKeyError,\n  type Store,\n} from '../../storage/port.js';\nimport type { LockStore } from '../../storage/port.js';\n";
    expect(portNames(file, text)).toEqual(['DuplicateKeyError', 'Store', 'LockStore']);
    expect(mayNameStore(file)).toBe(false);
    expect(mayNameStore(path.join(root, 'src', 'domain', 'chain', 'machine-repository.ts'))).toBe(true);
  });
});
