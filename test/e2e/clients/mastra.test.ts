import { MCPClient } from '@mastra/mcp';
import { randomUUID } from 'node:crypto';
import { agentStory, type AgentClient, type ToolOutcome } from './agent-story.js';

/** Mastra's MCP client: tools come namespaced by server name (`core_core_account`). */
agentStory({
  name: 'Mastra',
  async connect({ transport, stdio, http }): Promise<AgentClient> {
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
      async call(name, args): Promise<ToolOutcome> {
        const tool = tools[`${prefix}${name}`]!;
        try {
          // Mastra hands over `structuredContent` as the answer.
          return { isError: false, data: await tool.execute!(args, {} as never) };
        } catch (err) {
          // An isError result is thrown as a MastraError carrying the result's text ("CODE: message").
          return { isError: true, data: { error: String((err as Error).message) } };
        }
      },
      close: () => client.disconnect(),
    };
  },
});
