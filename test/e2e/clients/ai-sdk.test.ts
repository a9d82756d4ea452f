import { createMCPClient, type MCPClient } from '@ai-sdk/mcp';
import { StdioMCPTransport } from '@ai-sdk/mcp/mcp-stdio';
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, type ToolSet } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { agentStory, httpEntry, type AgentClient, type ToolOutcome } from './agent-story.js';

/** The Vercel AI SDK's MCP client, calling tools the way `generateText` would (`execute`). */
async function aiSdkClient(client: MCPClient): Promise<AgentClient> {
  const tools = (await client.tools()) as ToolSet;
  return {
    toolNames: Object.keys(tools),
    async call(name, args): Promise<ToolOutcome> {
      const result = (await tools[name]!.execute!(args, { toolCallId: 'story', messages: [], context: {} })) as {
        isError?: boolean;
        structuredContent?: unknown;
        content: { type: string; text?: string }[];
      };
      const data = result.structuredContent ?? JSON.parse(result.content[0]?.text ?? 'null');
      return { isError: result.isError === true, data };
    },
    close: () => client.close(),
  };
}

agentStory({
  name: 'AI SDK',
  async connect({ transport, stdio, http }) {
    const client = await createMCPClient({
      transport: transport === 'stdio' ? new StdioMCPTransport(stdio) : { type: 'http', url: http.url, headers: http.headers },
    });
    return aiSdkClient(client);
  },
});

describe('AI SDK tool conversion for an OpenAI model', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ CORE_RATE_LIMIT: 'off' });
  });
  afterAll(async () => {
    await server.close();
  });

  it('sends all 57 tools to the model without a single compatibility warning', async () => {
    const { url, headers } = httpEntry(server.url, undefined);
    const client = await createMCPClient({ transport: { type: 'http', url, headers } });
    const warnings: unknown[] = [];
    const globals = globalThis as { AI_SDK_LOG_WARNINGS?: unknown };
    const before = globals.AI_SDK_LOG_WARNINGS;
    globals.AI_SDK_LOG_WARNINGS = (logged: { warnings: unknown[] }) => void warnings.push(...logged.warnings);
    let sent: { tools?: unknown[] } | undefined;
    try {
      // No network: the provider's fetch answers a canned completion and keeps the request it was given.
      const openai = createOpenAI({
        apiKey: 'sk-test',
        fetch: async (_url, init) => {
          sent = JSON.parse(String(init?.body)) as { tools?: unknown[] };
          return Response.json({
            id: 'resp_1', object: 'response', created_at: 1, model: 'gpt-4o', status: 'completed',
            output: [{ type: 'message', id: 'msg_1', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'ok', annotations: [] }] }],
            usage: { input_tokens: 1, output_tokens: 1, total_tokens: 2 },
          });
        },
      });
      const result = await generateText({ model: openai('gpt-4o'), tools: await client.tools(), prompt: 'List my machines.' });
      expect(sent?.tools).toHaveLength(57);
      expect(result.warnings ?? []).toEqual([]);
      expect(warnings).toEqual([]);
    } finally {
      globals.AI_SDK_LOG_WARNINGS = before;
      await client.close();
    }
  });
});
