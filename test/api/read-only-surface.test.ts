import { beforeAll, describe, expect, it } from 'vitest';
import { allTools } from '../../tools/index.js';
import { mcpToolsOf } from '../../src/registry/mcp-tools.js';
import { buildRegistry } from '../../src/registry/registry.js';
import { callTool } from '../../src/transports/mcp/call-tool.js';
import { useServer } from '../helpers/use-server.js';

const registry = buildRegistry(allTools);

/** The operations a client can reach through the tools it is shown: each tool's `action` enum, or its one action. */
function reachable(readOnly: boolean): Map<string, string[]> {
  const ops = new Map<string, string[]>();
  for (const tool of mcpToolsOf(registry, { readOnly })) {
    const def = registry.toolByName.get(tool.name)!;
    const actions = registry.actionsOf(def);
    const enumOf = ((tool.inputSchema.properties as Record<string, { enum?: string[] }>).action?.enum ?? [...actions.keys()]) as string[];
    for (const name of enumOf) {
      const op = actions.get(name)!;
      const methods = (tool.inputSchema.properties as Record<string, { enum?: string[] }>).method?.enum;
      ops.set(op.id, op.response.kind === 'relay' ? (methods ?? []) : [op.method]);
    }
  }
  return ops;
}

describe('read-only mode (CORE_READ_ONLY)', () => {
  it('shows every GET operation through some tool, and nothing else but core_http limited to GET', () => {
    const seen = reachable(true);
    const gets = registry.operations.filter((op) => op.method === 'GET').map((op) => op.id);
    expect(gets.length).toBeGreaterThan(100);
    expect(gets.filter((id) => !seen.has(id))).toEqual([]);
    const others = [...seen].filter(([id]) => registry.byId.get(id)!.method !== 'GET');
    expect(others).toEqual([['http.call', ['GET']]]);
  });

  it('shows a tool that mixes reads and writes with its reading actions only', () => {
    const tally = mcpToolsOf(registry, { readOnly: true }).find((t) => t.name === 'core_tally')!;
    expect((tally.inputSchema.properties as Record<string, { enum: string[] }>).action!.enum).toEqual([
      'get_mint_rate',
      'get_supply',
      'get_token_info',
      'get_token',
      'list_tokens',
      'get_avatar',
    ]);
    expect(tally.description).not.toContain('genesis');
    expect(tally.annotations.readOnlyHint).toBe(true);
  });

  describe('over MCP', () => {
    let key: string;
    const server = useServer({ CORE_READ_ONLY: '1' });
    beforeAll(async () => {
      // Minting is a write, refused in read-only mode: the key comes from the identity service itself.
      ({ key } = await server.core.services.identity.mintDemoKey('read-only test'));
    });

    const call = (name: string, args: Record<string, unknown>) => callTool(server.core.surface, name, args, { bearer: key }, { surface: 'mcp-http' });

    it('answers a reading action of a mixed tool and refuses its writing action', async () => {
      const read = await call('core_machines', { action: 'list' });
      expect(read.isError, JSON.stringify(read.structuredContent)).toBeFalsy();
      const write = await call('core_tally', { action: 'genesis', slug: 'nope', name: 'X', symbol: 'X', max_supply: 1, mint_rate_per_tick: 0 });
      expect(write.isError).toBe(true);
      expect((write.structuredContent as any).error.code).toBe('FORBIDDEN');
    });

    it('lets core_http call GET operations and refuses every other method', async () => {
      const pulse = await call('core_http', { method: 'GET', path: '/api/pulse' });
      expect(pulse.isError, JSON.stringify(pulse.structuredContent)).toBeFalsy();
      expect((pulse.structuredContent as any).tick).toEqual(expect.any(Number));
      const write = await call('core_http', { method: 'POST', path: '/api/chain/state-machines', body: {} });
      expect(write.isError).toBe(true);
      expect((write.structuredContent as any).error.code).toBe('FORBIDDEN');
      expect((write.structuredContent as any).error.message).toMatch(/read-only/);
    });

    it('refuses a writing operation over REST', async () => {
      const res = await server.call('POST', '/api/chain/state-machines', { key, body: {} });
      expect(res.status).toBe(403);
    });
  });
});
