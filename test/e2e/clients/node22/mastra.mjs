/** Mastra's MCP client: tools come namespaced by server name (`core_core_account`). */
import { MCPClient } from '@mastra/mcp';
import { randomUUID } from 'node:crypto';

export async function connect({ transport, stdio, http }) {
  const client = new MCPClient({
    id: randomUUID(),
    servers: {
      core: transport === 'stdio' ? stdio : { url: new URL(http.url), requestInit: { headers: http.headers } },
    },
  });
  const tools = await client.listTools();
  const prefix = 'core_';
  return {
    toolNames: Object.keys(tools).map((name) => name.slice(prefix.length)),
    async call(name, args) {
      try {
        // Mastra hands over `structuredContent` as the answer.
        return { isError: false, data: await tools[`${prefix}${name}`].execute(args, {}) };
      } catch (err) {
        // An isError result is thrown as a MastraError carrying the result's text ("CODE: message").
        return { isError: true, data: { error: String(err.message) } };
      }
    },
    close: () => client.disconnect(),
  };
}
