import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, onTestFinished } from 'vitest';
import { tempDir } from '../helpers/server.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** The calls of the README's "A first session an agent can copy": `tool {json}  -> what it gives`. */
function firstSession(): Array<{ tool: string; args: Record<string, unknown> }> {
  const readme = readFileSync(`${root}/README.md`, 'utf8');
  const block = /### A first session an agent can copy\n\n```text\n([\s\S]*?)```/.exec(readme)?.[1];
  if (!block) throw new Error('README has no first-session block');
  return block
    .trim()
    .split('\n')
    .map((line) => {
      const match = /^(\S+)\s+(\{.*?\})\s*(?:->.*)?$/.exec(line);
      if (!match) throw new Error(`not a call: ${line}`);
      return { tool: match[1]!, args: JSON.parse(match[2]!) as Record<string, unknown> };
    });
}

describe("the README's first session", () => {
  it('works as written, over stdio, with no key configured', async () => {
    const data = await tempDir('core-readme-');
    onTestFinished(() => data.cleanup());
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['dist/src/cli.js', 'mcp'],
      cwd: root,
      env: { PATH: process.env.PATH ?? '', XDG_STATE_HOME: process.env.XDG_STATE_HOME ?? '', CORE_DATA_DIR: data.dir, LOG_LEVEL: 'warn' },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'readme', version: '1.0.0' });
    await client.connect(transport);
    onTestFinished(() => client.close());
    const calls = firstSession();
    expect(calls.length).toBeGreaterThanOrEqual(4);
    for (const { tool, args } of calls) {
      const result = await client.callTool({ name: tool, arguments: args });
      expect(result.isError, `${tool} ${JSON.stringify(args)}: ${JSON.stringify(result.content)}`).toBeFalsy();
    }
  });
});
