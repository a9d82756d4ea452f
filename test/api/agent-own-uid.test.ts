import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { mintKey } from '../helpers/server.js';
import { useServer } from '../helpers/use-server.js';

const server = useServer();

async function connect(key: string): Promise<Client> {
  const client = new Client({ name: 'own-uid', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/api/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
  return client;
}

describe("an agent route's uid", () => {
  it("is the caller's own when left out over MCP, and the tool list does not require it", async () => {
    const me = await mintKey(server);
    const client = await connect(me.key);
    try {
      const { tools } = await client.listTools();
      for (const name of ['core_sandbox_run', 'core_agent_state']) {
        const tool = tools.find((t) => t.name === name)!;
        expect(tool.inputSchema.required ?? [], name).not.toContain('uid');
      }
      const patched = await client.callTool({ name: 'core_agent_state', arguments: { action: 'patch', patch: { note: 'mine' } } });
      expect(patched.isError, JSON.stringify(patched.content)).toBeFalsy();
      const read = await client.callTool({ name: 'core_agent_state', arguments: { action: 'get' } });
      expect(read.structuredContent).toMatchObject({ uid: me.uid, state: { note: 'mine' } });
      // Named, it is still checked: another agent's store needs that agent's delegation.
      const other = await mintKey(server);
      const foreign = await client.callTool({ name: 'core_agent_state', arguments: { action: 'get', uid: other.uid } });
      expect(foreign.isError).toBe(true);
    } finally {
      await client.close();
    }
  });

  it('is still taken from the path on REST', async () => {
    const me = await mintKey(server);
    const res = await server.call('GET', `/api/agent/${me.uid}/state`, { key: me.key });
    expect(res.status).toBe(200);
    expect(res.body.uid).toBe(me.uid);
  });
});
