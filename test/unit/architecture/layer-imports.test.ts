import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../../src/lib/paths.js';
import { importSpecifiers, resolveImport, sourceFiles } from '../../helpers/source-files.js';

const src = path.join(packageRoot(), 'src');
const domainDir = path.join(src, 'domain');

/** Every module a domain file imports, as a path relative to src/ (or the package name). */
function importsOf(file: string): string[] {
  return importSpecifiers(file).map((spec) => (spec.startsWith('.') ? path.relative(src, resolveImport(file, spec)) : spec));
}

/** Layers above the domain, and the libraries only they may use. */
const OUTWARD = /^(registry|pipeline|transports|application)\/|^(compose(-[a-z]+)?|config|config-settings|server|cli)\.ts$|^express$|^@modelcontextprotocol\//;

describe('the domain layer', () => {
  it('imports neither the registry, the pipeline, the transports, the application layer, the configuration, the composition nor a transport library', () => {
    const files = sourceFiles(domainDir);
    expect(files.length).toBeGreaterThan(100);
    const outward = files.flatMap((file) =>
      importsOf(file)
        .filter((to) => OUTWARD.test(to))
        .map((to) => `${path.relative(domainDir, file)} -> ${to}`),
    );
    expect(outward).toEqual([]);
  });

  it('names each layer the rule keeps out (the rule can fail)', () => {
    for (const to of [
      'registry/types.ts',
      'pipeline/invoke.ts',
      'transports/http/app.ts',
      'application/http-relay.ts',
      'config.ts',
      'compose-repositories.ts',
      'express',
    ]) {
      expect(OUTWARD.test(to)).toBe(true);
    }
    expect(OUTWARD.test('lib/clock.ts')).toBe(false);
    expect(OUTWARD.test('storage/port.ts')).toBe(false);
  });
});

describe('the registry, pipeline and transports', () => {
  it('reach storage only through its port, never an adapter (lowdb, PostgreSQL)', () => {
    const files = ['registry', 'pipeline', 'transports', 'application'].flatMap((d) => sourceFiles(path.join(src, d)));
    const adapters = files.flatMap((file) =>
      importsOf(file)
        .filter((to) => /^storage\/(lowdb|postgres)\//.test(to))
        .map((to) => `${path.relative(src, file)} -> ${to}`),
    );
    expect(adapters).toEqual([]);
  });
});
