import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { allTools } from '../../tools/index.js';
import { buildRegistry } from '../../src/registry/registry.js';
import { readsWithShareToken } from '../../src/registry/share-reads.js';
import { mintKey, spinUp, tempDir } from '../helpers/server.js';
import { useServer } from '../helpers/use-server.js';

// A share token (shr_) or an unlock token (unl_) read through MCP as an agent would use it: the
// descriptors say where it goes, the reading tools and core_http take it, and one sent as the key is
// named as what it is. Over HTTP (the SDK's Streamable HTTP client) and over stdio (`core-server mcp`).

const root = fileURLToPath(new URL('../..', import.meta.url));

type Result = { isError?: boolean; structuredContent?: any; content: Array<{ type: string; text?: string }> };
const call = async (client: Client, name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as Result;
const textOf = (result: Result) => result.content.map((c) => c.text ?? '').join('\n');

/** What a share token opens: the reading tools of a private machine, one action each. */
const READS = (slug: string): Array<[string, Record<string, unknown>]> => [
  ['core_chain_read', { action: 'get_state', slug }],
  ['core_machines', { action: 'get', slug }],
  ['core_activity', { action: 'activity', slug }],
  ['core_chain_verify', { action: 'validate', slug }],
  ['core_http', { method: 'GET', path: `/api/chain/${slug}/stats` }],
];

describe('share tokens over MCP HTTP', () => {
  let share: string;
  let unlock: string;
  let outsider: string;

  const server = useServer({ CORE_RATE_LIMIT: 'off' });
  beforeAll(async () => {
    const { key } = await spinUp(server, 'shared-http');
    share = (await server.call('POST', '/api/chain/state-machines/shared-http/share/set', { key, body: {} })).body.share_token;
    await server.call('PATCH', '/api/chain/shared-http/settings', { key, body: { password: 'correct horse battery' } });
    unlock = (await server.call('POST', '/api/chain/shared-http/unlock', { body: { password: 'correct horse battery' } })).body.share_token;
    ({ key: outsider } = await mintKey(server));
  });

  async function connect(headers: Record<string, string> = {}): Promise<Client> {
    const client = new Client({ name: 'share-http', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/api/mcp`), { requestInit: { headers } }));
    onTestFinished(() => client.close());
    return client;
  }

  it('tells an agent where the token goes: a share_token field on the reading tools and core_http only', async () => {
    expect(share).toMatch(/^shr_/);
    expect(unlock).toMatch(/^unl_/);
    const { tools } = await (await connect()).listTools();
    const taking = tools.filter((t) => (t.inputSchema.properties as Record<string, unknown>).share_token !== undefined).map((t) => t.name);
    for (const [name] of READS('x')) expect(taking).toContain(name);
    for (const name of ['core_spin_up', 'core_chain_write', 'core_account', 'core_api_keys']) expect(taking).not.toContain(name);
    const field = (tools.find((t) => t.name === 'core_chain_read')!.inputSchema.properties as Record<string, { description: string }>).share_token;
    expect(field?.description).toMatch(/share or unlock token.*not a key/);
  });

  it('reads the private machine with the share_token argument, anonymous or with a key of someone else, and not without it', async () => {
    for (const headers of [{}, { Authorization: `Bearer ${outsider}` }] as Array<Record<string, string>>) {
      const client = await connect(headers);
      for (const [name, args] of READS('shared-http')) {
        const refused = await call(client, name, args);
        expect(refused.isError, `${name} without a token`).toBe(true);
        expect(textOf(refused)).toMatch(/^NOT_FOUND/);
        for (const token of [share, unlock]) {
          const read = await call(client, name, { ...args, share_token: token });
          expect(read.isError, `${name}: ${textOf(read)}`).toBeFalsy();
        }
      }
    }
  });

  it('opens a read of every tool whose descriptor offers share_token', async () => {
    const registry = buildRegistry(allTools);
    const client = await connect();
    const { tools } = await client.listTools();
    const covered: string[] = [];
    for (const tool of tools.filter((t) => (t.inputSchema.properties as Record<string, unknown>).share_token !== undefined)) {
      const ops = [...registry.actionsOf(registry.toolByName.get(tool.name)!).values()].filter((op) => readsWithShareToken(op) && op.response.kind !== 'relay');
      // One action per tool that needs nothing but the machine; the others need ids this machine does not have.
      const op = ops.find((o) => ((o.inputSchema.required ?? []) as string[]).every((f) => f === 'slug' || f === 'motherSlug'));
      if (!op) continue;
      const field = 'slug' in (op.inputSchema.properties as object) ? 'slug' : 'motherSlug';
      const args: Record<string, unknown> = { ...(registry.actionsOf(op.tool).size > 1 ? { action: op.action } : {}), [field]: 'shared-http' };
      // A stream collects for a bounded time; 100 ms is enough to see the machine opened.
      if (op.response.kind === 'stream') args.max_ms = 100;
      const hidden = textOf(await call(client, tool.name, args));
      expect(hidden, `${op.id} without a token`).toMatch(/^NOT_FOUND/);
      // Past the machine's read check: an answer, or a refusal about something else (a tally not minted yet).
      const read = textOf(await call(client, tool.name, { ...args, share_token: share }));
      expect(read.split('\n')[0], op.id).not.toBe(hidden.split('\n')[0]);
      covered.push(tool.name);
    }
    // All but core_block (a tick) and core_contracts (a contract id), which READS and the REST tests cover.
    expect(covered.length).toBeGreaterThanOrEqual(10);
  });

  it('reads it with the X-Share-Token header on the transport, and through core_http with ?share_token=', async () => {
    const client = await connect({ 'X-Share-Token': share });
    expect((await call(client, 'core_chain_read', { action: 'get_stats', slug: 'shared-http' })).isError).toBeFalsy();
    const anonymous = await connect();
    const inPath = await call(anonymous, 'core_http', { method: 'GET', path: `/api/chain/shared-http/state?share_token=${share}` });
    expect(inPath.isError, textOf(inPath)).toBeFalsy();
    expect(inPath.structuredContent).toMatchObject({ ok: true, slug: 'shared-http' });
    const inQuery = await call(anonymous, 'core_http', { method: 'GET', path: '/api/chain/shared-http/state', query: { share_token: unlock } });
    expect(inQuery.isError, textOf(inQuery)).toBeFalsy();
  });

  it('refuses a token that is not live, and a share_token that is not a string', async () => {
    const client = await connect();
    const stale = await call(client, 'core_chain_read', { action: 'get_state', slug: 'shared-http', share_token: `shr_${'0'.repeat(40)}` });
    expect(textOf(stale)).toMatch(/^NOT_FOUND/);
    const wrongType = await call(client, 'core_chain_read', { action: 'get_state', slug: 'shared-http', share_token: 42 });
    expect(wrongType.isError).toBe(true);
    expect(textOf(wrongType)).toMatch(/^VALIDATION_FAILED.*share_token must be the share or unlock token/);
  });

  it('refuses share_token on a tool that cannot read with one, naming the field', async () => {
    const client = await connect({ Authorization: `Bearer ${outsider}` });
    const refused = await call(client, 'core_spin_up', { slug: 'not-made', share_token: share });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/^VALIDATION_FAILED.*share_token/);
  });

  it('names a share or unlock token sent as the key, and says where it goes', async () => {
    for (const [token, what] of [
      [share, 'a share token'],
      [unlock, 'an unlock token'],
    ] as const) {
      const client = await connect({ Authorization: `Bearer ${token}` });
      // A read of the private machine: 401, not "not found", and not "unknown to this store".
      const read = await call(client, 'core_chain_read', { action: 'get_state', slug: 'shared-http' });
      expect(read.isError).toBe(true);
      expect(textOf(read)).toMatch(new RegExp(`^UNAUTHENTICATED.*Missing or invalid key: the value sent as the key is ${what}.*share_token argument`));
      expect(textOf(read)).not.toContain('not known to this server');
      // An operation that needs a key says the same.
      const write = await call(client, 'core_spin_up', { slug: 'not-made' });
      expect(textOf(write)).toMatch(new RegExp(`^UNAUTHENTICATED.*is ${what}.*X-Share-Token header`));
    }
    // And over REST: 401 with the same words.
    const rest = await server.call('GET', '/api/chain/shared-http/state', { key: share });
    expect(rest.status).toBe(401);
    expect(rest.body.error.message).toMatch(/is a share token .*\?share_token= on REST/);
    // A public answer carries the same as its warning.
    const warned = await server.call('GET', '/api/chain/state-machines', { key: share });
    expect(warned.headers.get('x-core-key-warning')).toMatch(/is a share token/);
  });
});

describe('share tokens over MCP stdio', () => {
  /** `core-server mcp` as a client starts it, on its own data directory and state folder. */
  async function connect(data: string, state: string, env: Record<string, string> = {}): Promise<Client> {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['dist/src/cli.js', 'mcp'],
      cwd: root,
      env: { PATH: process.env.PATH ?? '', HOME: state, XDG_STATE_HOME: state, CORE_DATA_DIR: data, LOG_LEVEL: 'warn', CORE_RATE_LIMIT: 'off', ...env },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'share-stdio', version: '1.0.0' });
    await client.connect(transport);
    onTestFinished(() => client.close());
    return client;
  }

  it('reads a private machine with share_token, and names a share token set as CORE_API_KEY', async () => {
    const data = await tempDir('core-share-stdio-data-');
    const state = await tempDir('core-share-stdio-state-');
    onTestFinished(async () => {
      await data.cleanup();
      await state.cleanup();
    });
    // The owner: mints a key (the session adopts it), makes a private machine and shares it.
    const owner = await connect(data.dir, state.dir, { CORE_REMEMBER_KEY: '0' });
    expect((await call(owner, 'core_account', { action: 'mint_demo_key' })).isError).toBeFalsy();
    expect((await call(owner, 'core_spin_up', { slug: 'shared-stdio' })).isError).toBeFalsy();
    const shared = await call(owner, 'core_machine_settings', { action: 'share_set', slug: 'shared-stdio' });
    const token = shared.structuredContent.share_token as string;
    expect(token).toMatch(/^shr_/);
    await owner.close();

    const visitor = await connect(data.dir, state.dir, { CORE_REMEMBER_KEY: '0' });
    for (const [name, args] of READS('shared-stdio')) {
      expect(textOf(await call(visitor, name, args))).toMatch(/^NOT_FOUND/);
      const read = await call(visitor, name, { ...args, share_token: token });
      expect(read.isError, `${name}: ${textOf(read)}`).toBeFalsy();
    }
    await visitor.close();

    const misplaced = await connect(data.dir, state.dir, { CORE_REMEMBER_KEY: '0', CORE_API_KEY: token });
    const read = await call(misplaced, 'core_chain_read', { action: 'get_state', slug: 'shared-stdio' });
    expect(textOf(read)).toMatch(/^UNAUTHENTICATED.*is a share token .*share_token argument/);
    // With the token where it goes, the same session reads.
    expect((await call(misplaced, 'core_chain_read', { action: 'get_state', slug: 'shared-stdio', share_token: token })).isError).toBeFalsy();
  });
});
