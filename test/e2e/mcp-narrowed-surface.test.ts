import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { startHttpServer } from '../../src/server.js';
import { tempDir, testConfig } from '../helpers/server.js';
import { stdioEntryOfCheckout } from '../helpers/mcp-json.js';

// "Narrowing is a boundary": CORE_TOOLSETS and CORE_READ_ONLY narrow what the
// tools can reach, not only what they list. core_http reaching a hidden operation is refused and writes
// nothing; a visible one works; core_api_catalog lists only what is reachable. Over stdio (the built CLI,
// started as mcp.json says) and over POST /api/mcp (the SDK's Streamable HTTP client).

const root = fileURLToPath(new URL('../..', import.meta.url));
const mcpJson = stdioEntryOfCheckout();

const BRENT = { inputs: { f: 'x^3 - 2*x - 5', a: 2, b: 3 } };

type Connect = (env: Record<string, string>) => Promise<Client>;

function structured(result: Awaited<ReturnType<Client['callTool']>>): any {
  return result.structuredContent;
}

/** The rows of the machine's log, read through an unnarrowed client of the same node. */
async function rowTypes(connect: Connect, slug: string): Promise<string[]> {
  const client = await connect({});
  try {
    const read = await client.callTool({ name: 'core_activity', arguments: { action: 'activity', slug } });
    expect(read.isError, JSON.stringify(read.structuredContent)).toBeFalsy();
    return structured(read).rows.map((r: { type: string }) => r.type);
  } finally {
    await client.close();
  }
}

/** The same cases over whichever transport `connect` opens; `slug` is a machine the client's key owns. */
function narrowingCases(transport: string, setup: () => { connect: Connect; slug: string }) {
  describe(`over ${transport}`, () => {
    it('CORE_TOOLSETS=compute: core_http cannot write through a hidden toolset, and the row is not written', async () => {
      const { connect, slug } = setup();
      const client = await connect({ CORE_TOOLSETS: 'compute' });
      try {
        const names = (await client.listTools()).tools.map((t) => t.name);
        expect(names).not.toContain('core_chain_write');
        expect(names).toContain('core_http');
        const write = await client.callTool({
          name: 'core_http',
          arguments: { method: 'POST', path: `/api/chain/${slug}/event`, body: { type: 'sneaked', payload: {} } },
        });
        expect(write.isError).toBe(true);
        expect(structured(write).error).toMatchObject({
          code: 'FORBIDDEN',
          message: expect.stringContaining('belongs to toolset "machines" and CORE_TOOLSETS=compute; start the server with CORE_TOOLSETS=compute,machines'),
        });
        // A read of a hidden toolset is refused the same way: the boundary is the toolset, not the method.
        const read = await client.callTool({ name: 'core_http', arguments: { method: 'GET', path: `/api/chain/${slug}/activity` } });
        expect(structured(read).error.code).toBe('FORBIDDEN');
        // A visible operation (compute) still works through core_http.
        const solved = await client.callTool({ name: 'core_http', arguments: { method: 'POST', path: '/api/solvers/root-brent/solve', body: BRENT } });
        expect(solved.isError, JSON.stringify(solved.structuredContent)).toBeFalsy();
        expect(structured(solved).ok).toBe(true);
        // The catalogue lists only what core_http can reach: compute, and platform (always kept).
        const search = await client.callTool({ name: 'core_api_catalog', arguments: { action: 'search' } });
        const endpoints = structured(search).endpoints as { id: string; toolset: string | null; path: string }[];
        expect(new Set(endpoints.filter((e) => e.id !== 'mcp.rpc').map((e) => e.toolset))).toEqual(new Set(['compute', 'platform']));
        expect(endpoints.some((e) => e.path === '/api/chain/{slug}/event')).toBe(false);
        const map = await client.callTool({ name: 'core_api_catalog', arguments: { action: 'map' } });
        expect(
          structured(map)
            .toolsets.map((t: { toolset: string }) => t.toolset)
            .sort(),
        ).toEqual(['compute', 'platform']);
      } finally {
        await client.close();
      }
      expect(await rowTypes(connect, slug)).not.toContain('sneaked');
    });

    it('CORE_READ_ONLY=1: core_http cannot write, reads still work, and the catalogue lists only reads', async () => {
      const { connect, slug } = setup();
      const client = await connect({ CORE_READ_ONLY: '1' });
      try {
        const write = await client.callTool({
          name: 'core_http',
          arguments: { method: 'POST', path: `/api/chain/${slug}/event`, body: { type: 'sneaked-ro', payload: {} } },
        });
        expect(structured(write).error).toMatchObject({ code: 'FORBIDDEN', message: expect.stringContaining('runs read-only (CORE_READ_ONLY)') });
        const read = await client.callTool({ name: 'core_http', arguments: { method: 'GET', path: `/api/chain/${slug}/activity` } });
        expect(read.isError, JSON.stringify(read.structuredContent)).toBeFalsy();
        const search = await client.callTool({ name: 'core_api_catalog', arguments: { action: 'search' } });
        const endpoints = structured(search).endpoints as { id: string; method: string }[];
        expect(endpoints.length).toBeGreaterThan(100);
        expect(endpoints.filter((e) => e.id !== 'mcp.rpc' && e.method !== 'GET')).toEqual([]);
      } finally {
        await client.close();
      }
      expect(await rowTypes(connect, slug)).not.toContain('sneaked-ro');
    });
  });
}

describe('surface controls are a boundary for core_http and core_api_catalog', () => {
  describe('stdio', () => {
    let data: { dir: string; cleanup: () => Promise<void> };
    let key = '';
    const slug = 'narrowed-stdio';
    const connect: Connect = async (env) => {
      const transport = new StdioClientTransport({
        command: mcpJson.command,
        args: mcpJson.args,
        cwd: root,
        env: { ...mcpJson.env, CORE_API_KEY: key, CORE_DATA_DIR: data.dir, LOG_LEVEL: 'warn', PATH: process.env.PATH ?? '', ...env },
        stderr: 'pipe',
      });
      const client = new Client({ name: 'e2e-narrowed', version: '1.0.0' });
      await client.connect(transport);
      return client;
    };
    beforeAll(async () => {
      data = await tempDir('core-narrowed-');
      const client = await connect({});
      try {
        key = structured(await client.callTool({ name: 'core_account', arguments: { action: 'mint_demo_key' } })).key;
      } finally {
        await client.close();
      }
      const owner = await connect({});
      try {
        const spun = await owner.callTool({ name: 'core_spin_up', arguments: { slug, is_public: false } });
        expect(spun.isError, JSON.stringify(spun.structuredContent)).toBeFalsy();
      } finally {
        await owner.close();
      }
    }, 120_000);
    afterAll(async () => {
      await data.cleanup();
    });
    narrowingCases('stdio (the built CLI)', () => ({ connect, slug }));
  });

  describe('http', () => {
    // The controls are read at start: each client gets a server of its own, one after another, on one
    // data directory, so the key and the machine made first are there for every setting.
    let data: { dir: string; cleanup: () => Promise<void> };
    let key = '';
    const slug = 'narrowed-http';
    const connect: Connect = async (env) => {
      const running = await startHttpServer({ config: testConfig(data.dir, env), log: createLogger('silent') });
      const client = new Client({ name: 'e2e-narrowed', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${running.url}/api/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }),
      );
      const close = client.close.bind(client);
      client.close = async () => {
        await close();
        await running.stop(1000);
      };
      return client;
    };
    beforeAll(async () => {
      data = await tempDir('core-narrowed-http-');
      const running = await startHttpServer({ config: testConfig(data.dir), log: createLogger('silent') });
      try {
        const minted = await fetch(`${running.url}/api/demo-key/mint`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
        key = ((await minted.json()) as { key: string }).key;
        const created = await fetch(`${running.url}/api/chain/state-machines`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
          body: JSON.stringify({ slug, is_public: false }),
        });
        expect(created.status).toBe(200);
      } finally {
        await running.stop(1000);
      }
    });
    afterAll(async () => {
      await data.cleanup();
    });
    narrowingCases('POST /api/mcp', () => ({ connect, slug }));
  });
});
