import { beforeAll, describe, expect, it } from 'vitest';
import { allTools } from '../../tools/index.js';
import { keyRequired } from '../../src/registry/auth-rule.js';
import { allEndpoints } from '../../src/registry/catalog.js';
import { openApiOf } from '../../src/registry/openapi.js';
import { buildRegistry } from '../../src/registry/registry.js';
import { callTool } from '../../src/transports/mcp/call-tool.js';
import { createMachine, mintKey } from '../helpers/server.js';
import { useServer } from '../helpers/use-server.js';

const registry = buildRegistry(allTools);

describe('the auth every surface states', () => {
  it('is the same in the catalogue and in OpenAPI for every operation, and the one the pipeline enforces', () => {
    const doc = openApiOf(registry);
    const byId = new Map(allEndpoints(registry).map((e) => [e.id, e]));
    for (const op of registry.operations) {
      const stated = byId.get(op.id)!.auth;
      const o = doc.paths[op.path]![op.method.toLowerCase()] as { security: unknown[]; responses: Record<string, unknown> };
      // A key is required when no security alternative is empty (`{}` means "no key").
      const openApiSaysKey = !o.security.some((alternative) => Object.keys(alternative as object).length === 0);
      expect(stated, op.id).toBe(keyRequired(op.def) ? 'bearer' : 'public');
      expect(openApiSaysKey, op.id).toBe(stated === 'bearer');
      expect('401' in o.responses, op.id).toBe(stated === 'bearer');
    }
  });

  it('calls an operation that checks a role, or acts for its caller, one that needs a key', () => {
    const auth = (id: string) => allEndpoints(registry).find((e) => e.id === id)!.auth;
    expect(auth('chain.createMachine')).toBe('bearer');
    expect(auth('auth.startSso')).toBe('bearer');
    expect(auth('tally.createGenesis')).toBe('bearer');
    expect(auth('chain.listMachines')).toBe('public');
    expect(auth('chain.uploadSitePage')).toBe('public');
  });

  it('says "owner only" in a summary only where the action checks the owner role', () => {
    for (const op of registry.operations) {
      if (/owner only/i.test(op.def.summary)) expect(op.def.role, op.id).toBe('owner');
    }
  });

  describe('over the wire', () => {
    let key: string;
    const server = useServer();
    beforeAll(async () => {
      ({ key } = await mintKey(server));
    });

    it('answers POST /api/chain/state-machines without a key with 401, over REST, MCP and core_http, as the catalogue states', async () => {
      expect((await server.call('GET', '/api/endpoints?path=/api/chain/state-machines&method=POST')).body.endpoints[0].auth).toBe('bearer');
      const rest = await server.call('POST', '/api/chain/state-machines', { body: { slug: 'anon-try' } });
      expect(rest.status).toBe(401);
      const mcp = await callTool(server.core.surface, 'core_spin_up', { slug: 'anon-try' }, {}, { surface: 'mcp-http' });
      expect((mcp.structuredContent as any).error.code).toBe('UNAUTHENTICATED');
      const relay = await callTool(
        server.core.surface,
        'core_http',
        { method: 'POST', path: '/api/chain/state-machines', body: { slug: 'anon-try' } },
        {},
        { surface: 'mcp-http' },
      );
      expect((relay.structuredContent as any).error.code).toBe('UNAUTHENTICATED');
      await createMachine(server, key, { slug: 'anon-try' });
    });

    it('gives the map when core_api_catalog is called with no arguments, as GET /api/endpoints/map does', async () => {
      const result = await callTool(server.core.surface, 'core_api_catalog', {}, {}, { surface: 'mcp-http' });
      expect(result.isError).toBeFalsy();
      const map = result.structuredContent as any;
      expect(map.tools).toBe(57);
      expect(map.operations).toBe(registry.operations.length);
      expect(map.toolsets.map((t: any) => t.toolset)).toEqual(['platform', 'compute', 'machines', 'contracts', 'agents', 'economy', 'edge']);
      expect(map.toolsets.reduce((n: number, t: any) => n + t.operations, 0)).toBe(registry.operations.length);
      expect(map.how_to_search.join('\n')).toContain('"action": "search"');
      const rest = await server.call('GET', '/api/endpoints/map');
      expect(rest.status).toBe(200);
      expect(rest.body.toolsets).toEqual(map.toolsets);
      const search = await callTool(server.core.surface, 'core_api_catalog', { action: 'search', q: 'pulse' }, {}, { surface: 'mcp-http' });
      expect((search.structuredContent as any).endpoints.map((e: any) => e.id)).toContain('platform.getPulse');
    });

    it('keeps structuredContent compact and self-sufficient: the answer itself, its text the same JSON', async () => {
      const answers = [
        await callTool(server.core.surface, 'core_pulse', { action: 'pulse' }, {}, { surface: 'mcp-http' }),
        await callTool(server.core.surface, 'core_machines', { action: 'get', slug: 'anon-try' }, { bearer: key }, { surface: 'mcp-http' }),
      ];
      for (const a of answers) {
        expect(a.isError).toBeFalsy();
        const text = (a.content[0] as { text: string }).text;
        expect(text).not.toMatch(/\n/);
        expect(JSON.parse(text)).toEqual(a.structuredContent);
        expect(Object.keys(a)).toEqual(['content', 'structuredContent']);
      }
      const failed = await callTool(server.core.surface, 'core_machines', { action: 'get', slug: 'no-such-machine' }, {}, { surface: 'mcp-http' });
      expect(failed.isError).toBe(true);
      expect(failed.structuredContent).toEqual({ error: expect.objectContaining({ code: 'NOT_FOUND', message: expect.any(String) }) });
      expect((failed.content[0] as { text: string }).text).toMatch(/^NOT_FOUND: /);
    });
  });
});
