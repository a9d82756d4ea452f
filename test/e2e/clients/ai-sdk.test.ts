import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NODE22_VERSION } from '../../helpers/node22.js';
import { useServer } from '../../helpers/use-server.js';
import { agentStory, httpEntry } from './agent-story.js';
import { startNode22Runner, type Node22Runner } from './node22-runner.js';

/**
 * The Vercel AI SDK's MCP client (`node22/ai-sdk.mjs`), calling tools the way `generateText` would
 * (`execute`). `@ai-sdk/mcp`, `ai` and `@ai-sdk/openai` declare Node >= 22, so the client runs on the
 * pinned Node 22 in a child process; the story and its assertions run here.
 */
let runner: Node22Runner;
// The first run in a checkout fetches and unpacks Node 22 (about 50 MB from the npm registry); the limit
// only catches a hang.
beforeAll(async () => {
  runner = await startNode22Runner('ai-sdk');
}, 300_000);
afterAll(async () => {
  await runner?.stop();
});

it('runs the AI SDK on the pinned Node 22', () => {
  expect(runner.nodeVersion).toBe(`v${NODE22_VERSION}`);
});

agentStory({
  name: 'AI SDK',
  connect: (target) => runner.connect(target),
});

describe('AI SDK tool conversion for an OpenAI model', () => {
  const server = useServer({ CORE_RATE_LIMIT: 'off' });

  it('connects in the modern era: its server/discover probe is answered and it never falls back to initialize', async () => {
    const sent = await runner.request<string[]>('methodsSent', {
      ...httpEntry(server.url, undefined),
      tool: 'core_constants',
      args: { action: 'get', key: 'h' },
    });
    expect(sent[0]).toBe('server/discover');
    expect(sent).toContain('tools/call');
    expect(sent).not.toContain('initialize');
  });

  it('sends all 57 tools to the model without a single compatibility warning', async () => {
    const converted = await runner.request<{ sentTools: number | null; resultWarnings: unknown[]; loggedWarnings: unknown[] }>(
      'convertForOpenAI',
      httpEntry(server.url, undefined),
    );
    expect(converted.sentTools).toBe(57);
    expect(converted.resultWarnings).toEqual([]);
    expect(converted.loggedWarnings).toEqual([]);
  });
});
