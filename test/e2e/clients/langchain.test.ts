import { MultiServerMCPClient } from '@langchain/mcp-adapters';
import { agentStory, type AgentClient, type ToolOutcome } from './agent-story.js';

/** LangChain's MCP adapters, calling tools as an agent's tool node would (`invoke`). */
agentStory({
  name: 'LangChain',
  async connect({ transport, stdio, http }): Promise<AgentClient> {
    const client = new MultiServerMCPClient({
      mcpServers: {
        core: transport === 'stdio' ? { transport: 'stdio', ...stdio } : { transport: 'http', url: http.url, headers: http.headers },
      },
      throwOnLoadError: true,
    });
    const tools = await client.getTools();
    return {
      toolNames: tools.map((t) => t.name),
      async call(name, args): Promise<ToolOutcome> {
        const tool = tools.find((t) => t.name === name)!;
        try {
          const answer = (await tool.invoke(args)) as unknown;
          return { isError: false, data: parsed(answer) };
        } catch (err) {
          // The adapter turns an isError result into a ToolException carrying the result's text; the
          // agent's tool node shows the model that text.
          return { isError: true, data: { error: String((err as Error).message) } };
        }
      },
      close: () => client.close(),
    };
  },
});

/** The JSON the tool answered, from whatever shape of content the adapter returns. */
function parsed(answer: unknown): unknown {
  const text = typeof answer === 'string' ? answer : Array.isArray(answer) ? (answer[0] as { text?: string })?.text : (answer as { text?: string })?.text;
  return text === undefined ? answer : JSON.parse(text);
}
