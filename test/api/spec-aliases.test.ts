import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spinUp } from '../helpers/server.js';
import { useServer } from '../helpers/use-server.js';

// The spec names GET /api/chain/{slug}/analytics's window `windowTicks`; ours is `window_ticks`. Both are
// accepted on every surface, and giving both is refused.

let client: Client;
const server = useServer();
beforeAll(async () => {
  await spinUp(server, 'alias-m', true);
  client = new Client({ name: 'aliases', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/api/mcp`)));
});
afterAll(async () => {
  await client.close();
});

describe("the spec's parameter names", () => {
  it('accepts windowTicks on GET /api/chain/{slug}/analytics over REST, as window_ticks', async () => {
    const spec = await server.call('GET', '/api/chain/alias-m/analytics?windowTicks=120&buckets=4');
    const ours = await server.call('GET', '/api/chain/alias-m/analytics?window_ticks=120&buckets=4');
    expect(spec.status).toBe(200);
    expect(spec.body).toMatchObject({ window_ticks: 120, buckets: 4 });
    expect(spec.body).toEqual(ours.body);
  });

  it('refuses windowTicks and window_ticks together, naming both', async () => {
    const res = await server.call('GET', '/api/chain/alias-m/analytics?windowTicks=120&window_ticks=60');
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe('Give "window_ticks" or its alias "windowTicks", not both');
  });

  it('accepts windowTicks through the MCP tool and through core_http', async () => {
    const viaTool = await client.callTool({ name: 'core_chain_read', arguments: { action: 'analytics', slug: 'alias-m', windowTicks: 90 } });
    expect(viaTool.isError, JSON.stringify(viaTool.content)).toBeFalsy();
    expect(viaTool.structuredContent).toMatchObject({ window_ticks: 90 });
    const viaHttp = await client.callTool({ name: 'core_http', arguments: { method: 'GET', path: '/api/chain/alias-m/analytics?windowTicks=90' } });
    expect(viaHttp.isError, JSON.stringify(viaHttp.content)).toBeFalsy();
    expect(JSON.stringify(viaHttp.structuredContent)).toContain('"window_ticks":90');
  });

  it('lists windowTicks in OpenAPI beside window_ticks, not required', async () => {
    const doc = (await server.call('GET', '/api/openapi.json')).body;
    const params = doc.paths['/api/chain/{slug}/analytics'].get.parameters as Array<{ name: string; required: boolean }>;
    expect(params.find((p) => p.name === 'windowTicks')).toMatchObject({ in: 'query', required: false });
    expect(params.find((p) => p.name === 'window_ticks')).toBeDefined();
  });
});

describe("the spec's 'Solvers' tag", () => {
  it('tags the solver operations Solvers in OpenAPI and keeps their toolset tag', async () => {
    const doc = (await server.call('GET', '/api/openapi.json')).body;
    for (const [path, method] of [
      ['/api/solvers', 'get'],
      ['/api/solvers/{id}', 'get'],
      ['/api/solvers/{id}/solve', 'post'],
    ] as const) {
      expect(doc.paths[path][method].tags, path).toEqual(expect.arrayContaining(['Solvers', 'compute']));
    }
    expect(doc.tags).toContainEqual(expect.objectContaining({ name: 'Solvers' }));
    const others = Object.entries(doc.paths).flatMap(([p, ops]) =>
      Object.values(ops as Record<string, { tags: string[] }>)
        .filter((o) => o.tags.includes('Solvers'))
        .map(() => p),
    );
    expect(new Set(others)).toEqual(new Set(['/api/solvers', '/api/solvers/{id}', '/api/solvers/{id}/solve']));
  });

  it('finds them by tag in GET /api/endpoints', async () => {
    const res = await server.call('GET', '/api/endpoints?tag=Solvers');
    expect(res.status).toBe(200);
    const ids = (res.body.endpoints ?? res.body).map((e: { id: string }) => e.id);
    expect(ids.sort()).toEqual(['solver.get', 'solver.list', 'solver.solve']);
  });
});
