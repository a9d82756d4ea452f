import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { allTools } from '../tools/index.js';
import { catalogFiles } from '../src/registry/catalog-files.js';
import { allEndpoints } from '../src/registry/catalog.js';
import { mcpToolsOf } from '../src/registry/mcp-tools.js';
import { openApiOf } from '../src/registry/openapi.js';
import { buildRegistry, TRANSPORT_ROUTES } from '../src/registry/registry.js';
import { TOOLSETS } from '../src/registry/types.js';
import { exercisingTestSources, operationsReachedIn } from './helpers/operation-references.js';

const registry = buildRegistry(allTools);
// A copy of ../shared/spec/operations.txt, so a clean clone can run the drift test on its own.
const specLines = readFileSync(new URL('./fixtures/spec-operations.txt', import.meta.url), 'utf8')
  .split('\n')
  .map((l) => l.trim())
  .filter(Boolean)
  .map((l) => {
    const [method, path, auth] = l.split(/\s+/);
    return { method: method!, path: path!, auth: auth! };
  });

const key = (m: string, p: string) => `${m} ${p}`;

describe('the tool registry', () => {
  it('has exactly 57 tools with names core_[a-z0-9_]{1,35}', () => {
    expect(registry.tools).toHaveLength(57);
    for (const tool of registry.tools) expect(tool.name).toMatch(/^core_[a-z0-9_]{1,35}$/);
  });

  it('groups the tools into the seven toolsets of the design', () => {
    const counts = Object.fromEntries(TOOLSETS.map((t) => [t, registry.tools.filter((x) => x.toolset === t).length]));
    expect(counts).toEqual({ platform: 7, compute: 9, machines: 14, contracts: 13, agents: 8, economy: 3, edge: 3 });
  });

  it('covers every line of operations.txt with the same auth rule', () => {
    expect(specLines).toHaveLength(177);
    const ops = new Map(registry.operations.map((op) => [key(op.method, op.path), op]));
    const transport = new Set(TRANSPORT_ROUTES.map((r) => key(r.method, r.path)));
    for (const line of specLines) {
      const k = key(line.method, line.path);
      if (line.auth === 'MCP') {
        expect(transport.has(k), k).toBe(true);
        continue;
      }
      const op = ops.get(k);
      expect(op, `missing ${k}`).toBeDefined();
      expect(op!.def.auth, k).toBe(line.auth === 'B' ? 'bearer' : 'public');
    }
  });

  it('serves the unlisted paths the design fixes', () => {
    const unlisted = [
      'GET /api/solvers',
      'GET /api/solvers/{id}',
      'POST /api/solvers/{id}/solve',
      'POST /api/compute',
      'POST /api/proof/verify',
      'GET /api/operators',
      'GET /api/operators/categories',
      'GET /api/operators/{id}',
      'GET /api/kernel',
      'GET /api/kernel/prompt',
      'GET /api/pulse',
      'POST /api/decompress',
      'GET /api/health',
      'GET /api/status',
      'GET /api/metrics',
      'GET /api/openapi.json',
    ];
    const ops = new Set(registry.operations.map((op) => key(op.method, op.path)));
    for (const k of unlisted) expect(ops.has(k), k).toBe(true);
  });

  it('gives every operation an area.verbNoun id, a one-sentence summary and unique routes', () => {
    for (const op of registry.operations) {
      expect(op.id).toMatch(/^[a-z][A-Za-z]*\.[a-z][A-Za-z0-9]*$/);
      expect(op.def.summary.length, op.id).toBeGreaterThan(20);
      expect(op.def.summary.trim().endsWith('.'), op.id).toBe(true);
    }
    const routes = registry.operations.map((op) => key(op.method, op.path.replace(/\{[^}]+\}/g, '{}')));
    expect(new Set(routes).size).toBe(routes.length);
  });

  it('lists the same routes in /api/endpoints and in the OpenAPI paths as in the registry', () => {
    const fromRegistry = new Set([...registry.operations.map((op) => key(op.method, op.path)), ...TRANSPORT_ROUTES.map((r) => key(r.method, r.path))]);
    const fromEndpoints = new Set(allEndpoints(registry).map((e) => key(e.method, e.path)));
    const doc = openApiOf(registry);
    const fromOpenApi = new Set(Object.entries(doc.paths).flatMap(([p, methods]) => Object.keys(methods).map((m) => key(m.toUpperCase(), p))));
    expect(fromEndpoints).toEqual(fromRegistry);
    expect(fromOpenApi).toEqual(fromRegistry);
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('1.287.0');
  });
});

describe('the MCP tool descriptors', () => {
  const tools = mcpToolsOf(registry);

  it('have a non-empty type:object inputSchema', () => {
    for (const tool of tools) {
      expect(tool.inputSchema.type, tool.name).toBe('object');
      const props = Object.keys((tool.inputSchema.properties ?? {}) as object);
      const actions = registry.actionsOf(registry.toolByName.get(tool.name)!).size;
      if (actions > 1) expect(props, tool.name).toContain('action');
      expect(JSON.stringify(tool.inputSchema).length, tool.name).toBeGreaterThan(20);
    }
  });

  it('carry a title and the four annotation hints derived from their actions, each given where it differs from the MCP default (destructiveHint on every writing tool)', () => {
    // MCP defaults: readOnly false, destructive true, idempotent false, openWorld true.
    const defaults = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true };
    for (const tool of tools) {
      const given = tool.annotations as Record<string, boolean>;
      const ops = [...registry.actionsOf(registry.toolByName.get(tool.name)!).values()];
      // Only a destructive writing tool repeats a default (destructiveHint: true), so the confirmation hint is never left out.
      for (const [hint, value] of Object.entries(given)) {
        if (hint !== 'destructiveHint' || value !== true) expect(value, `${tool.name} ${hint}`).not.toBe(defaults[hint as keyof typeof defaults]);
      }
      expect('destructiveHint' in given, `${tool.name} says whether it is destructive`).toBe(!ops.every((op) => op.method === 'GET'));
      expect(tool.title, tool.name).toBe(registry.toolByName.get(tool.name)!.title);
      const { readOnlyHint, destructiveHint, idempotentHint, openWorldHint } = { ...defaults, ...given };
      expect(readOnlyHint, tool.name).toBe(ops.every((op) => op.method === 'GET'));
      if (!readOnlyHint) {
        expect(destructiveHint, tool.name).toBe(ops.some((op) => op.def.destructive === true || op.method === 'DELETE'));
        expect(idempotentHint, tool.name).toBe(ops.every((op) => op.method === 'GET' || op.def.idempotent === true));
      }
      expect(openWorldHint, tool.name).toBe(ops.some((op) => op.def.openWorld === true));
    }
  });

  it('hide the tools of other toolsets and the writing actions under the surface controls', () => {
    const compute = mcpToolsOf(registry, { toolsets: ['compute'] });
    expect(new Set(compute.map((t) => registry.toolByName.get(t.name)!.toolset))).toEqual(new Set(['platform', 'compute']));
    const readOnly = mcpToolsOf(registry, { readOnly: true });
    expect(readOnly.length).toBeGreaterThan(0);
    for (const t of readOnly) expect(t.annotations.readOnlyHint, t.name).toBe(true);
  });
});

describe('the test suite', () => {
  it('reaches every operation of the registry from a test that exercises it', () => {
    const reached = new Set<string>();
    for (const { text } of exercisingTestSources()) for (const id of operationsReachedIn(registry, text)) reached.add(id);
    const unreached = registry.operations.map((op) => op.id).filter((id) => !reached.has(id));
    expect(unreached).toEqual([]);
  });
});

describe('the committed catalog', () => {
  it('equals what the registry generates (run `npm run catalog` after changing a tool)', () => {
    for (const [name, text] of Object.entries(catalogFiles(registry))) {
      const committed = readFileSync(new URL(`../catalog/${name}`, import.meta.url), 'utf8');
      expect(committed === text, `catalog/${name} drifted; run npm run catalog`).toBe(true);
    }
  });
});
