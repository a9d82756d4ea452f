import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/server.js';
import { UNKNOWN_KEY_MESSAGE } from '../../src/errors.js';
import { stdioEntryOfCheckout } from '../helpers/mcp-json.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const config = stdioEntryOfCheckout();

let dataDir: { dir: string; cleanup: () => Promise<void> };

/** Starts the server exactly as mcp.json says, over a fresh data dir, as the SDK client would. */
async function connect(apiKey = ''): Promise<Client> {
  const transport = new StdioClientTransport({
    command: config.command,
    args: config.args,
    cwd: root,
    env: {
      ...config.env,
      CORE_API_KEY: apiKey,
      CORE_DATA_DIR: dataDir.dir,
      LOG_LEVEL: 'warn',
      PATH: process.env.PATH ?? '',
      XDG_STATE_HOME: process.env.XDG_STATE_HOME ?? '',
    },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'e2e-stdio', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

function structured(result: Awaited<ReturnType<Client['callTool']>>): any {
  return result.structuredContent;
}

beforeAll(async () => {
  dataDir = await tempDir('core-stdio-');
});
afterAll(async () => {
  await dataDir.cleanup();
});

describe('MCP over stdio, started from mcp.json', () => {
  let key = '';

  it('lists exactly the 57 tools of catalog/tools.json', async () => {
    const client = await connect();
    try {
      expect(client.getServerVersion()?.name).toBe('core-server');
      const { tools } = await client.listTools();
      expect(tools).toHaveLength(57);
      const committed = JSON.parse(readFileSync(`${root}/catalog/tools.json`, 'utf8'));
      expect(tools).toEqual(committed);
      const minted = await client.callTool({ name: 'core_account', arguments: { action: 'mint_demo_key' } });
      expect(minted.isError).toBeFalsy();
      key = structured(minted).key;
      expect(key).toMatch(/^core_/);
    } finally {
      await client.close();
    }
  });

  it('runs one call per toolset with the key from CORE_API_KEY', async () => {
    const client = await connect(key);
    try {
      const pulse = await client.callTool({ name: 'core_pulse', arguments: { action: 'pulse' } });
      expect(structured(pulse).tick).toBeGreaterThan(2_000_000_000);

      const spun = await client.callTool({ name: 'core_spin_up', arguments: { slug: 'stdio-demo', is_public: true } });
      expect(spun.isError).toBeFalsy();
      expect(structured(spun).machine.slug).toBe('stdio-demo');

      const wrote = await client.callTool({
        name: 'core_chain_write',
        arguments: { action: 'append_event', slug: 'stdio-demo', type: 'hello', payload: { a: 1 } },
      });
      expect(structured(wrote).seq).toBe(1);

      const read = await client.callTool({ name: 'core_activity', arguments: { action: 'activity', slug: 'stdio-demo' } });
      expect(structured(read).rows.map((r: { type: string }) => r.type)).toEqual(['hello', 'machine.created']);

      // One real call into every other toolset.
      const solvers = await client.callTool({ name: 'core_solvers', arguments: { action: 'list' } });
      expect(structured(solvers).solvers.length).toBe(32);
      const contracts = await client.callTool({ name: 'core_contracts', arguments: { action: 'list', slug: 'stdio-demo' } });
      expect(contracts.isError, JSON.stringify(contracts.structuredContent)).toBeFalsy();
      const agents = await client.callTool({ name: 'core_agents', arguments: { action: 'list' } });
      expect(agents.isError, JSON.stringify(agents.structuredContent)).toBeFalsy();
      const policy = await client.callTool({ name: 'core_contribute', arguments: { action: 'policy' } });
      expect(policy.isError, JSON.stringify(policy.structuredContent)).toBeFalsy();
      const sites = await client.callTool({ name: 'core_cdn_sites', arguments: { action: 'list', slug: 'stdio-demo' } });
      expect(sites.isError, JSON.stringify(sites.structuredContent)).toBeFalsy();
    } finally {
      await client.close();
    }
  });

  it('returns isError with a stable code on bad arguments and a JSON-RPC error for an unknown tool', async () => {
    const client = await connect(key);
    try {
      const bad = await client.callTool({ name: 'core_constants', arguments: { action: 'get', key: 123 } });
      expect(bad.isError).toBe(true);
      expect((bad.content as Array<{ text: string }>)[0]!.text).toMatch(/^VALIDATION_FAILED: /);
      expect(structured(bad).error.details.issues[0].path).toBe('key');

      const noAction = await client.callTool({ name: 'core_constants', arguments: {} });
      expect(noAction.isError).toBe(true);
      expect(structured(noAction).error.code).toBe('VALIDATION_FAILED');

      await expect(client.callTool({ name: 'core_nope', arguments: {} })).rejects.toBeInstanceOf(McpError);
    } finally {
      await client.close();
    }
  });

  it('refuses a bearer tool with an invalid CORE_API_KEY as UNAUTHENTICATED', async () => {
    const client = await connect('core_invalidinvalidinvalidinvalid0000');
    try {
      const res = await client.callTool({ name: 'core_chain_write', arguments: { action: 'append_event', slug: 'stdio-demo' } });
      expect(res.isError).toBe(true);
      // The same message as on REST, with the key's mint named as the tool call stdio can make.
      const message = UNKNOWN_KEY_MESSAGE.replace('POST /api/demo-key/mint', 'core_account {"action": "mint_demo_key"}');
      expect(structured(res).error).toMatchObject({ code: 'UNAUTHENTICATED', message });
    } finally {
      await client.close();
    }
  });

  it('reports progress on a long solve when the client sends a progress token, and stops on cancellation', async () => {
    const client = await connect(key);
    try {
      const updates: number[] = [];
      const long = { sigma: 10, rho: 28, beta: 8 / 3, initial: [1, 1, 1], dt: 0.001, transient: 10, duration: 400 };
      const done = await client.callTool({ name: 'core_solve', arguments: { id: 'lorenz-lyapunov', inputs: long } }, undefined, {
        onprogress: (p) => updates.push(p.progress),
        timeout: 240_000, // a hang-catcher
      });
      expect(done.isError, JSON.stringify(done.structuredContent)).toBeFalsy();
      expect(updates.length).toBeGreaterThan(0);

      const controller = new AbortController();
      const cancelled = client.callTool({ name: 'core_solve', arguments: { id: 'lorenz-lyapunov', inputs: { ...long, duration: 5000 } } }, undefined, {
        signal: controller.signal,
        onprogress: () => controller.abort(),
        timeout: 240_000, // a hang-catcher
      });
      await expect(cancelled).rejects.toThrow();
      // The connection stays usable after a cancelled call.
      const pulse = await client.callTool({ name: 'core_pulse', arguments: { action: 'pulse' } });
      expect(pulse.isError).toBeFalsy();
    } finally {
      await client.close();
    }
  });
});
