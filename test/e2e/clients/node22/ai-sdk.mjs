/** The Vercel AI SDK's MCP client, calling tools the way `generateText` would (`execute`). */
import { createMCPClient } from '@ai-sdk/mcp';
import { StdioMCPTransport } from '@ai-sdk/mcp/mcp-stdio';
import { createOpenAI } from '@ai-sdk/openai';
import { generateText } from 'ai';

export async function connect({ transport, stdio, http }) {
  const client = await createMCPClient({
    transport: transport === 'stdio' ? new StdioMCPTransport(stdio) : { type: 'http', url: http.url, headers: http.headers },
  });
  const tools = await client.tools();
  return {
    toolNames: Object.keys(tools),
    async call(name, args) {
      const result = await tools[name].execute(args, { toolCallId: 'story', messages: [], context: {} });
      const data = result.structuredContent ?? JSON.parse(result.content[0]?.text ?? 'null');
      return { isError: result.isError === true, data };
    },
    close: () => client.close(),
  };
}

export const ops = {
  /** The JSON-RPC methods the client posts over HTTP while it connects, lists the tools and calls one. */
  async methodsSent({ url, headers, tool, args }) {
    const methods = [];
    const fetchRecording = async (input, init) => {
      if (typeof init?.body === 'string') methods.push(JSON.parse(init.body).method);
      return fetch(input, init);
    };
    const client = await createMCPClient({ transport: { type: 'http', url, headers, fetch: fetchRecording } });
    try {
      const tools = await client.tools();
      await tools[tool].execute(args, { toolCallId: 'probe', messages: [], context: {} });
      return methods;
    } finally {
      await client.close();
    }
  },
  /**
   * Hands every tool of the server at `http` to an OpenAI model through `generateText`, and reports what
   * the provider was sent and every warning the SDK raised (returned or logged).
   */
  async convertForOpenAI({ url, headers }) {
    const client = await createMCPClient({ transport: { type: 'http', url, headers } });
    const logged = [];
    const before = globalThis.AI_SDK_LOG_WARNINGS;
    globalThis.AI_SDK_LOG_WARNINGS = (entry) => void logged.push(...entry.warnings);
    let sent;
    try {
      // No network: the provider's fetch answers a canned completion and keeps the request it was given.
      const openai = createOpenAI({
        apiKey: 'sk-test',
        fetch: async (_url, init) => {
          sent = JSON.parse(String(init?.body));
          return Response.json({
            id: 'resp_1',
            object: 'response',
            created_at: 1,
            model: 'gpt-4o',
            status: 'completed',
            output: [{ type: 'message', id: 'msg_1', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'ok', annotations: [] }] }],
            usage: { input_tokens: 1, output_tokens: 1, total_tokens: 2 },
          });
        },
      });
      const result = await generateText({ model: openai('gpt-4o'), tools: await client.tools(), prompt: 'List my machines.' });
      return { sentTools: sent?.tools?.length ?? null, resultWarnings: result.warnings ?? [], loggedWarnings: logged };
    } finally {
      globalThis.AI_SDK_LOG_WARNINGS = before;
      await client.close();
    }
  },
};
