import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, onTestFinished } from 'vitest';
import { tempDir } from '../helpers/server.js';
import { serverForTest } from '../helpers/use-server.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

interface Folders {
  data: string;
  state: string;
}

async function folders(): Promise<Folders> {
  const data = await tempDir('core-stdio-key-data-');
  const state = await tempDir('core-stdio-key-state-');
  onTestFinished(async () => {
    await data.cleanup();
    await state.cleanup();
  });
  return { data: data.dir, state: state.dir };
}

/** `core-server mcp` as a client starts it, with the official SDK client. */
async function connect(where: Folders, env: Record<string, string> = {}): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['dist/src/cli.js', 'mcp'],
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOME: where.state, XDG_STATE_HOME: where.state, CORE_DATA_DIR: where.data, LOG_LEVEL: 'warn', ...env },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'stdio-key', version: '1.0.0' });
  await client.connect(transport);
  onTestFinished(() => client.close());
  return client;
}

const call = async (client: Client, name: string, args: Record<string, unknown>) =>
  (await client.callTool({ name, arguments: args })) as { isError?: boolean; structuredContent: any };
const keyFile = (where: Folders) => path.join(where.state, 'core-server', 'keys.json');

describe('a key minted over stdio', () => {
  it('is used by the same session at once and found again at the next start, kept owner-only', async () => {
    const where = await folders();
    const first = await connect(where);
    expect((await call(first, 'core_account', { action: 'whoami' })).structuredContent.authenticated).toBe(false);
    const minted = (await call(first, 'core_account', { action: 'mint_demo_key' })).structuredContent;
    expect(minted.note).toMatch(/^This stdio session sends this key from now on, and finds it again at its next start/);
    const me = (await call(first, 'core_account', { action: 'whoami' })).structuredContent;
    expect(me).toMatchObject({ authenticated: true, uid: minted.uid });
    // A write that needs the key works without a restart.
    const spun = await call(first, 'core_spin_up', { slug: 'alone-1' });
    expect(spun.isError).toBeFalsy();
    await first.close();

    const file = keyFile(where);
    expect((await stat(file)).mode & 0o077).toBe(0);
    expect((await stat(path.dirname(file))).mode & 0o077).toBe(0);
    expect(JSON.parse(await readFile(file, 'utf8')).keys[`lowdb:${where.data}`]).toBe(minted.key);

    const second = await connect(where);
    expect((await call(second, 'core_account', { action: 'whoami' })).structuredContent).toMatchObject({ authenticated: true, uid: minted.uid });
  });

  it('is not remembered with CORE_REMEMBER_KEY=0, yet still used by its session', async () => {
    const where = await folders();
    const first = await connect(where, { CORE_REMEMBER_KEY: '0' });
    const minted = (await call(first, 'core_account', { action: 'mint_demo_key' })).structuredContent;
    expect(minted.note).toContain('not remembered');
    expect((await call(first, 'core_account', { action: 'whoami' })).structuredContent.uid).toBe(minted.uid);
    await first.close();
    await expect(stat(keyFile(where))).rejects.toThrow();
    const second = await connect(where, { CORE_REMEMBER_KEY: '0' });
    expect((await call(second, 'core_account', { action: 'whoami' })).structuredContent.authenticated).toBe(false);
  });

  it('never replaces the key set in CORE_API_KEY', async () => {
    const where = await folders();
    const seed = await connect(where, { CORE_REMEMBER_KEY: '0' });
    const operator = (await call(seed, 'core_account', { action: 'mint_demo_key' })).structuredContent;
    await seed.close();
    const client = await connect(where, { CORE_API_KEY: operator.key });
    const other = (await call(client, 'core_account', { action: 'mint_demo_key' })).structuredContent;
    expect(other.note).toContain('keeps sending the key in CORE_API_KEY');
    expect((await call(client, 'core_account', { action: 'whoami' })).structuredContent.uid).toBe(operator.uid);
    await expect(stat(keyFile(where))).rejects.toThrow();
  });

  it('is used at once through the relay to a running server too', async () => {
    const where = await folders();
    const server = await serverForTest();
    const client = await connect({ data: server.dataDir, state: where.state });
    const minted = (await call(client, 'core_account', { action: 'mint_demo_key' })).structuredContent;
    expect((await call(client, 'core_account', { action: 'whoami' })).structuredContent).toMatchObject({ authenticated: true, uid: minted.uid });
    expect(JSON.parse(await readFile(keyFile(where), 'utf8')).keys[`lowdb:${server.dataDir}`]).toBe(minted.key);
  });
});

describe('a key minted over MCP HTTP', () => {
  it('comes with the exact header to send, which then works', async () => {
    const server = await serverForTest();
    const connectHttp = async (headers: Record<string, string>) => {
      const client = new Client({ name: 'http-key', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/api/mcp`), { requestInit: { headers } }));
      onTestFinished(() => client.close());
      return client;
    };
    const minted = (await call(await connectHttp({}), 'core_account', { action: 'mint_demo_key' })).structuredContent;
    expect(minted.note).toContain('"Authorization: Bearer <key>"');
    expect(minted.note).toContain('"X-API-Key: <key>"');
    for (const headers of [{ Authorization: `Bearer ${minted.key}` }, { 'X-API-Key': minted.key as string }] as Array<Record<string, string>>) {
      const me = (await call(await connectHttp(headers), 'core_account', { action: 'whoami' })).structuredContent;
      expect(me).toMatchObject({ authenticated: true, uid: minted.uid });
    }
  });
});
