import { afterAll, beforeAll, expect, it } from 'vitest';
import { NODE22_VERSION } from '../../helpers/node22.js';
import { agentStory } from './agent-story.js';
import { startNode22Runner, type Node22Runner } from './node22-runner.js';

/**
 * Mastra's MCP client (`node22/mastra.mjs`). `@mastra/mcp` and `@mastra/core` declare Node >= 22.13, so
 * the client runs on the pinned Node 22 in a child process; the story and its assertions run here.
 */
let runner: Node22Runner;
// The first run in a checkout fetches and unpacks Node 22 (about 50 MB from the npm registry); the limit
// only catches a hang.
beforeAll(async () => {
  runner = await startNode22Runner('mastra');
}, 300_000);
afterAll(async () => {
  await runner?.stop();
});

it('runs Mastra on the pinned Node 22', () => {
  expect(runner.nodeVersion).toBe(`v${NODE22_VERSION}`);
});

agentStory({
  name: 'Mastra',
  connect: (target) => runner.connect(target),
});
