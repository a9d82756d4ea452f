import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, onTestFinished } from 'vitest';
import { tempDir } from '../helpers/server.js';
import { databaseUrl, dropSchema, uniqueSchema } from '../store/postgres-harness.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

/**
 * `core-server mcp` given requests and then end-of-input at once: every call read before stdin ended
 * is answered, and nothing logs a store closed under it.
 */
async function callsThenEof(env: Record<string, string>): Promise<{ code: number | null; ids: number[]; stderr: string }> {
  const data = await tempDir('core-mcp-eof-');
  onTestFinished(() => data.cleanup());
  const child = spawn(process.execPath, ['dist/src/cli.js', 'mcp'], {
    cwd: root,
    env: { ...process.env, CORE_DATA_DIR: data.dir, LOG_LEVEL: 'info', CORE_RATE_LIMIT: 'off', DATABASE_URL: '', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let stderr = '';
  child.stdout!.on('data', (c) => (out += c));
  child.stderr!.on('data', (c) => (stderr += c));
  const send = (m: unknown) => child.stdin!.write(`${JSON.stringify(m)}\n`);
  send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'eof', version: '1' } } });
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  for (let i = 0; i < 6; i++)
    send({ jsonrpc: '2.0', id: 10 + i, method: 'tools/call', params: { name: 'core_account', arguments: { action: 'mint_demo_key' } } });
  child.stdin!.end();
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  const ids = out
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { id: number; result?: { isError?: boolean } })
    .filter((m) => m.result !== undefined && !m.result.isError)
    .map((m) => m.id)
    .sort((a, b) => a - b);
  return { code, ids, stderr };
}

describe('mcp over stdio at end of input', () => {
  it('answers every tool call in flight before closing the store (lowdb)', async () => {
    const { code, ids, stderr } = await callsThenEof({});
    expect(code).toBe(0);
    expect(ids).toEqual([1, 10, 11, 12, 13, 14, 15]);
    expect(stderr).not.toMatch(/not open/);
  });

  it.skipIf(databaseUrl === undefined)('answers every tool call in flight before closing the store (PostgreSQL)', async () => {
    const schema = uniqueSchema('mcpeof');
    onTestFinished(() => dropSchema(schema));
    const { code, ids, stderr } = await callsThenEof({ DATABASE_URL: databaseUrl!, DATABASE_SCHEMA: schema });
    expect(code).toBe(0);
    expect(ids).toEqual([1, 10, 11, 12, 13, 14, 15]);
    expect(stderr).not.toMatch(/not open/);
  });
});
