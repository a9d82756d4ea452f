import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { useServer } from '../helpers/use-server.js';

const server = useServer({ CORE_RATE_LIMIT: 'off' });

async function connect(headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'surface-wording', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/api/mcp`), { requestInit: { headers } }));
  return client;
}
const text = (result: Awaited<ReturnType<Client['callTool']>>): string => (result.content as { text: string }[]).map((c) => c.text).join('\n');

describe('an error that points at another operation', () => {
  it('names the REST path on REST', async () => {
    const res = await server.call('GET', '/api/contracts/templates/no-such-template');
    expect(res.status).toBe(404);
    expect(res.body.error.message).toContain('list them with GET /api/contracts/templates');
  });

  it('names the tool and action on MCP, and no REST path', async () => {
    const client = await connect();
    try {
      const result = await client.callTool({ name: 'core_contract_templates', arguments: { action: 'get', id: 'no-such-template' } });
      expect(result.isError).toBe(true);
      expect(text(result)).toContain('list them with core_contract_templates {"action": "list"}');
      expect(text(result)).not.toContain('/api/');
      expect((result.structuredContent as any).error.message).not.toContain('/api/');
    } finally {
      await client.close();
    }
  });

  it('says how to get a key in the words of each surface, after the spec\'s "Missing or invalid key"', async () => {
    const rest = await server.call('POST', '/api/chain/state-machines', { body: { slug: 'wording-lab' } });
    expect(rest.status).toBe(401);
    expect(rest.body.error.message).toMatch(/^Missing or invalid key: .*POST \/api\/demo-key\/mint/);
    const client = await connect();
    try {
      const result = await client.callTool({ name: 'core_spin_up', arguments: { slug: 'wording-lab' } });
      expect(result.isError).toBe(true);
      expect(text(result)).toMatch(/^UNAUTHENTICATED: Missing or invalid key: .*core_account \{"action": "mint_demo_key"\}/);
      expect(text(result)).not.toContain('/api/');
    } finally {
      await client.close();
    }
  });

  it("renders an unknown key's warning note in tool words too", async () => {
    const client = await connect({ authorization: 'Bearer core_0000000000000000000000000000000000000000' });
    try {
      const result = await client.callTool({ name: 'core_account', arguments: { action: 'whoami' } });
      expect(result.isError).toBeFalsy();
      const note = (result.content as { text: string }[]).at(-1)!.text;
      expect(note).toMatch(/^Warning: .*core_account \{"action": "mint_demo_key"\}/);
      expect(note).not.toContain('/api/');
      expect((result._meta as Record<string, string>)['core/warning']).toBe(note.slice('Warning: '.length));
    } finally {
      await client.close();
    }
  });

  it('names the tool and action of a refused input on MCP, and the operation id on REST', async () => {
    const client = await connect();
    try {
      const result = await client.callTool({ name: 'core_contract_templates', arguments: { action: 'get', id: 'x', colour: 1 } });
      expect(text(result)).toContain('Invalid input for core_contract_templates action "get"');
    } finally {
      await client.close();
    }
    const rest = await server.call('GET', '/api/contracts/templates/x?colour=1');
    expect(rest.body.error.message).toMatch(/^Invalid input for contracts\.\w+:/);
  });
});
