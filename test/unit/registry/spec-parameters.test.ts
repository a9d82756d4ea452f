import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildRegistry } from '../../../src/registry/registry.js';
import { applyAliases } from '../../../src/registry/aliases.js';
import { allTools } from '../../../tools/index.js';

const registry = buildRegistry(allTools);
const named = readFileSync(new URL('../../fixtures/spec-parameters.txt', import.meta.url), 'utf8')
  .split('\n')
  .filter((l) => l.trim() && !l.startsWith('#'))
  .map((l) => l.trim().split(' ') as [string, string, string]);

describe('parameter names the spec gives', () => {
  it.each(named)('%s %s accepts %s', (method, path, name) => {
    const concrete = path.replace(/\{([^}]+)\}/g, 'x1');
    const match = registry.match(method, concrete);
    expect(match.kind, `${method} ${path}`).toBe('found');
    if (match.kind !== 'found') return;
    const op = match.op;
    // Accepted: the schema declares the name, or declares an alias for it; either way strict parsing keeps it.
    const input = applyAliases(op, { [name]: undefined });
    expect(input instanceof Error ? input.message : Object.keys(input as object).filter((k) => !(k in op.def.input.shape))).toEqual([]);
  });
});
