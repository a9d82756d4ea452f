import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/server.js';
import { useServer } from '../helpers/use-server.js';

/**
 * Both MCP eras over stdio, by hand: `core-server mcp` serving on its own and relaying to a running
 * server. What Claude Code does is the first case: a `server/discover` probe, then (had it chosen the
 * legacy era) `initialize` on the same process.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));
const onPostgres = process.env.CORE_TEST_BACKEND === 'postgres';
const VERSION = '2026-07-28';
const META = { 'io.modelcontextprotocol/protocolVersion': VERSION, 'io.modelcontextprotocol/clientCapabilities': {} };

type Answer = { id: number; result?: any; error?: { code: number; message: string; data?: any } };

/** `core-server mcp` on `dataDir`, asked one request at a time. */
function startStdio(dataDir: string) {
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, ['dist/src/cli.js', 'mcp'], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', XDG_STATE_HOME: process.env.XDG_STATE_HOME ?? '', CORE_DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const waiting = new Map<number, (a: Answer) => void>();
  let buffer = '';
  child.stdout.on('data', (chunk) => {
    buffer += chunk;
    let end;
    while ((end = buffer.indexOf('\n')) >= 0) {
      const answer = JSON.parse(buffer.slice(0, end)) as Answer;
      buffer = buffer.slice(end + 1);
      waiting.get(answer.id)?.(answer);
    }
  });
  let nextId = 1;
  return {
    ask(method: string, params?: unknown): Promise<Answer> {
      const id = nextId++;
      const answered = new Promise<Answer>((resolve) => waiting.set(id, resolve));
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) })}\n`);
      return answered;
    },
    async close() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.stdin.end();
      await exited;
    },
  };
}

/** The steps a dual-era stdio session goes through, asserted the same way on both kinds of process. */
async function bothEras(stdio: ReturnType<typeof startStdio>): Promise<void> {
  const discover = await stdio.ask('server/discover', { _meta: META });
  expect(discover.result).toMatchObject({
    resultType: 'complete',
    supportedVersions: [VERSION],
    ttlMs: expect.any(Number),
    cacheScope: 'public',
    _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'core-server' } },
  });
  const tools = await stdio.ask('tools/list', { _meta: META });
  expect(tools.result).toMatchObject({ resultType: 'complete', ttlMs: expect.any(Number), cacheScope: 'public' });
  expect(tools.result.tools).toHaveLength(57);
  const call = await stdio.ask('tools/call', { name: 'core_constants', arguments: { action: 'get', key: 'h' }, _meta: META });
  expect(call.result).toMatchObject({ resultType: 'complete', structuredContent: { ok: true } });

  expect((await stdio.ask('tools/list', { _meta: { 'io.modelcontextprotocol/protocolVersion': VERSION } })).error?.code).toBe(-32602);
  const unsupported = await stdio.ask('tools/list', { _meta: { ...META, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' } });
  expect(unsupported.error).toMatchObject({ code: -32022, data: { supported: [VERSION], requested: '2099-01-01' } });
  expect((await stdio.ask('ping', { _meta: META })).error?.code).toBe(-32601);
  expect((await stdio.ask('resources/read', { uri: 'core://nowhere', _meta: META })).error?.code).toBe(-32602);

  const init = await stdio.ask('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } });
  expect(init.result).toMatchObject({ protocolVersion: '2025-11-25', serverInfo: { name: 'core-server' } });
  const legacy = await stdio.ask('tools/list');
  expect(legacy.result.tools).toHaveLength(57);
  expect(legacy.result.resultType).toBeUndefined();
  expect((await stdio.ask('ping')).result).toEqual({});
}

describe('core-server mcp serving on its own', () => {
  let dataDir: { dir: string; cleanup: () => Promise<void> };
  beforeAll(async () => {
    dataDir = await tempDir('core-modern-stdio-');
  });
  afterAll(async () => {
    await dataDir.cleanup();
  });

  it('answers a server/discover probe, serves the modern era, and then still serves initialize', async () => {
    const stdio = startStdio(dataDir.dir);
    try {
      await bothEras(stdio);
    } finally {
      await stdio.close();
    }
  });
});

describe.skipIf(onPostgres)('core-server mcp relaying to a running server', () => {
  const server = useServer({ CORE_RATE_LIMIT: 'off' });

  it('relays both eras with the headers the modern one needs', async () => {
    const stdio = startStdio(server.dataDir);
    try {
      await bothEras(stdio);
    } finally {
      await stdio.close();
    }
  });
});
