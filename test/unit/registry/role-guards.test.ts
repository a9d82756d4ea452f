import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { allTools } from '../../../tools/index.js';
import { buildRegistry } from '../../../src/registry/registry.js';
import { defineAction, defineTool, type ActionDef } from '../../../src/registry/types.js';

const base = {
  id: 'x.write',
  method: 'POST',
  path: '/api/x/{slug}',
  auth: 'bearer',
  area: 'x',
  summary: 'Writes x for the test.',
  input: z.object({ slug: z.string(), motherSlug: z.string() }),
  output: z.object({}),
  handler: async () => ({}),
} as const;
const toolOf = (def: ActionDef) => defineTool({ name: 'core_x', toolset: 'machines', title: 'X', description: 'x', actions: [def] });

describe('role guards', () => {
  it('names, for every role-checked operation, an input field that its schema declares', () => {
    const checked = buildRegistry(allTools).operations.filter((op) => op.def.role);
    expect(checked.length).toBeGreaterThan(0);
    for (const op of checked) expect(Object.keys(op.def.input.shape), op.id).toContain(op.def.guards);
  });

  it('refuses at start-up a role-checked route whose guarded input is not in its schema', () => {
    // The type of defineAction refuses this too; a cast stands for a declaration built at run time.
    const def = { ...defineAction({ ...base, role: 'operator', guards: 'slug' }), guards: 'machine' };
    expect(() => buildRegistry([toolOf(def)])).toThrow('x.write: guards names machine, which is not an input field');
  });

  it('refuses a role-checked route that does not say which input names its machine', () => {
    const def = { ...defineAction({ ...base, role: 'operator', guards: 'slug' }), guards: undefined };
    expect(() => buildRegistry([toolOf(def)])).toThrow('declares role operator but not which input (guards) names the machine');
  });

  it('refuses guards on a route that checks no role', () => {
    const def = { ...defineAction(base), guards: 'slug' };
    expect(() => buildRegistry([toolOf(def)])).toThrow('declares guards but no role to check');
  });

  it('accepts a route guarding an input other than slug', () => {
    expect(() => buildRegistry([toolOf(defineAction({ ...base, role: 'admin', guards: 'motherSlug' }))])).not.toThrow();
  });
});
