import { readFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, onTestFinished } from 'vitest';
import { tempDir } from '../helpers/server.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** Everything a start command writes on stdout for one `initialize`, until stdin ends. */
async function stdoutOf(command: string, args: string[]): Promise<string> {
  const data = await tempDir('core-clean-stdout-');
  onTestFinished(() => data.cleanup());
  const child = spawn(command, args, {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? '',
      XDG_STATE_HOME: process.env.XDG_STATE_HOME ?? '',
      HOME: process.env.HOME ?? '',
      CORE_DATA_DIR: data.dir,
      LOG_LEVEL: 'info',
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (c) => (out += c));
  child.stdin.end(
    `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'clean', version: '1' } } })}\n`,
  );
  await new Promise((resolve) => child.once('exit', resolve));
  return out;
}

describe('the documented stdio start commands', () => {
  it.each([
    ['npm run --silent mcp', 'npm', ['run', '--silent', 'mcp']],
    ['node dist/src/cli.js mcp', process.execPath, ['dist/src/cli.js', 'mcp']],
  ])('%s writes nothing but JSON-RPC on stdout, even with LOG_LEVEL=info', async (_name, command, args) => {
    const out = await stdoutOf(command, args as string[]);
    const lines = out.split('\n').filter((l) => l !== '');
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
    expect(JSON.parse(lines[0]!)).toMatchObject({ id: 1, result: { serverInfo: { name: 'core-server' } } });
  });
});

describe('the README', () => {
  it('names only the stdio start commands tested above, never the plain `npm run mcp` (npm prints its banner on stdout)', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    expect(readme).not.toMatch(/`npm run mcp`/);
    expect(readme).toContain('`npm run --silent mcp`');
    expect(readme).toContain('`node dist/src/cli.js mcp`');
  });
});
