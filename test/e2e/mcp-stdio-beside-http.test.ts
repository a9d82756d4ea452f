import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { mintKey, tempDir } from '../helpers/server.js';
import { useServer } from '../helpers/use-server.js';
import { stdioEntryOfCheckout } from '../helpers/mcp-json.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const config = stdioEntryOfCheckout();
const onPostgres = process.env.CORE_TEST_BACKEND === 'postgres';

/** The stdio server started exactly as mcp.json says, on `dataDir`, through the official SDK client. */
async function connectStdio(dataDir: string, env: Record<string, string> = {}): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: config.command,
    args: config.args,
    cwd: root,
    env: { ...config.env, CORE_DATA_DIR: dataDir, LOG_LEVEL: 'warn', PATH: process.env.PATH ?? '', XDG_STATE_HOME: process.env.XDG_STATE_HOME ?? '', ...env },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk) => (stderr += chunk));
  const client = new Client({ name: 'beside-http', version: '1.0.0' });
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

/**
 * `core-server mcp` given an `initialize` by hand (after a `server/discover` probe, as Claude Code sends,
 * with `probeFirst`): every line it writes on stdout, its stderr and its exit code (the time limit only
 * catches a hang).
 */
async function initializeRaw(dataDir: string, env: Record<string, string> = {}, probeFirst = false) {
  const child = spawn(process.execPath, ['dist/src/cli.js', 'mcp'], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', XDG_STATE_HOME: process.env.XDG_STATE_HOME ?? '', CORE_DATA_DIR: dataDir, LOG_LEVEL: 'warn', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let stderr = '';
  child.stdout.on('data', (c) => (out += c));
  child.stderr.on('data', (c) => (stderr += c));
  const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
  if (probeFirst) child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'server/discover', params: { _meta: meta } })}\n`);
  child.stdin.write(
    `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } })}\n`,
  );
  const code = await new Promise<number | null>((resolve, reject) => {
    const hang = setTimeout(() => {
      child.kill();
      reject(new Error(`mcp did not exit; stdout: ${out} stderr: ${stderr}`));
    }, 120_000); // a hang-catcher: starting Node and the server takes seconds on a loaded machine
    child.once('exit', (c) => {
      clearTimeout(hang);
      resolve(c);
    });
  });
  const lines =
    out.trim() === ''
      ? []
      : out
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as { id: number; result?: unknown; error?: { code: number; message: string } });
  return { code, lines, stderr };
}

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

describe.skipIf(onPostgres)('mcp over stdio on a data directory a running serve holds', () => {
  let key: string;
  let uid: string;

  const server = useServer({ CORE_RATE_LIMIT: 'off' });
  beforeAll(async () => {
    ({ key, uid } = await mintKey(server));
  });

  it('records where the running server serves MCP, beside its lock', async () => {
    const record = JSON.parse(await readFile(path.join(server.dataDir, '.serve.json'), 'utf8'));
    expect(record).toEqual({ pid: process.pid, mcp_url: `${server.url}/api/mcp` });
  });

  it('relays to it: machines made over REST are seen over stdio, and the reverse', async () => {
    const made = await server.call('POST', '/api/chain/state-machines', { key, body: { slug: 'made-over-rest' } });
    expect(made.status).toBe(200);
    const { client } = await connectStdio(server.dataDir, { CORE_API_KEY: key });
    try {
      expect(client.getServerVersion()?.name).toBe('core-server');
      const { tools } = await client.listTools();
      expect(tools).toHaveLength(57);
      const who = await client.callTool({ name: 'core_account', arguments: { action: 'whoami' } });
      expect(who.structuredContent).toMatchObject({ uid, machines_owned: ['made-over-rest'] });
      const spun = await client.callTool({ name: 'core_spin_up', arguments: { slug: 'made-over-stdio' } });
      expect(spun.isError, JSON.stringify(spun.structuredContent)).toBeFalsy();
      const bad = await client.callTool({ name: 'core_spin_up', arguments: { slug: 'Not A Slug!' } });
      expect(bad.isError).toBe(true);
    } finally {
      await client.close();
    }
    const seen = await server.call('GET', '/api/chain/state-machines/made-over-stdio', { key });
    expect(seen.status).toBe(200);
    expect(seen.body.role).toBe('owner');
  });

  it('refuses before answering initialize when asked to narrow the running server (CORE_READ_ONLY)', async () => {
    const { code, lines, stderr } = await initializeRaw(server.dataDir, { CORE_READ_ONLY: '1' });
    expect(code).toBe(1);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ id: 1, error: { code: -32000, message: expect.stringMatching(/CORE_READ_ONLY set here cannot apply/) } });
    expect(stderr).toMatch(/CORE_READ_ONLY set here cannot apply/);
  });
});

describe('mcp over stdio on a data directory it cannot use', () => {
  it('fails before answering initialize when a process that is not a serve holds the directory', async () => {
    const data = await tempDir('core-held-');
    onTestFinished(() => data.cleanup());
    // This test process stands for the holder: alive, and it wrote no serve record.
    await writeFile(path.join(data.dir, '.lock'), String(process.pid));
    const { code, lines, stderr } = await initializeRaw(data.dir);
    expect(code).toBe(1);
    expect(lines).toHaveLength(1);
    const reason = `in use by process ${process.pid}`;
    expect(lines[0]!.result).toBeUndefined();
    expect(lines[0]!.error).toMatchObject({ code: -32000, message: expect.stringContaining(reason) });
    expect(stderr).toContain(reason);
    // The holder's lock is left alone.
    expect(await readFile(path.join(data.dir, '.lock'), 'utf8')).toBe(String(process.pid));
  });

  it('answers a server/discover probe with the reason and stays to answer the initialize that follows', async () => {
    const data = await tempDir('core-held-probe-');
    onTestFinished(() => data.cleanup());
    await writeFile(path.join(data.dir, '.lock'), String(process.pid));
    const { code, lines } = await initializeRaw(data.dir, {}, true);
    expect(code).toBe(1);
    const reason = expect.stringContaining(`in use by process ${process.pid}`);
    expect(lines).toEqual([
      { jsonrpc: '2.0', id: 0, error: { code: -32000, message: reason } },
      { jsonrpc: '2.0', id: 1, error: { code: -32000, message: reason } },
    ]);
  });

  it('shows an SDK client the reason instead of a closed connection', async () => {
    const data = await tempDir('core-held-sdk-');
    onTestFinished(() => data.cleanup());
    await writeFile(path.join(data.dir, '.lock'), String(process.pid));
    const attempt = connectStdio(data.dir);
    await expect(attempt).rejects.toThrow(new RegExp(`in use by process ${process.pid}`));
  });

  it('answers initialize with an error naming the endpoint when the recorded server does not answer', async () => {
    const data = await tempDir('core-gone-');
    onTestFinished(() => data.cleanup());
    const url = `http://127.0.0.1:${await closedPort()}/api/mcp`;
    await writeFile(path.join(data.dir, '.lock'), String(process.pid));
    await writeFile(path.join(data.dir, '.serve.json'), JSON.stringify({ pid: process.pid, mcp_url: url }));
    const { code, lines, stderr } = await initializeRaw(data.dir);
    expect(code).toBe(1);
    expect(lines).toEqual([{ jsonrpc: '2.0', id: 1, error: { code: -32000, message: expect.stringContaining(`did not answer at ${url}`) } }]);
    expect(stderr).toContain(url);
  });

  it('serves on its own when the recorded holder is gone (a crashed server)', async () => {
    const data = await tempDir('core-crashed-');
    onTestFinished(() => data.cleanup());
    const dead = spawn(process.execPath, ['-e', '']);
    const deadPid = dead.pid!;
    await new Promise((resolve) => dead.once('exit', resolve));
    await writeFile(path.join(data.dir, '.lock'), String(deadPid));
    await writeFile(path.join(data.dir, '.serve.json'), JSON.stringify({ pid: deadPid, mcp_url: `http://127.0.0.1:${await closedPort()}/api/mcp` }));
    const { client } = await connectStdio(data.dir);
    try {
      const minted = await client.callTool({ name: 'core_account', arguments: { action: 'mint_demo_key' } });
      expect(minted.isError).toBeFalsy();
    } finally {
      await client.close();
    }
  });
});
