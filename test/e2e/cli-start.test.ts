import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, onTestFinished } from 'vitest';
import { API_VERSION } from '../../src/config.js';
import { SETTINGS } from '../../src/config-settings.js';
import { tempDir } from '../helpers/server.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the built CLI until it exits, or (with `until`) until stdout matches, then stops it.
 * `input` is written to stdin, which then stays open (an MCP client keeps it open).
 */
function cli(args: string[], env: Record<string, string>, opts: { until?: RegExp; input?: string } = {}): Promise<Ran> {
  const child = spawn(process.execPath, ['dist/src/cli.js', ...args], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', XDG_STATE_HOME: process.env.XDG_STATE_HOME ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'warn', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  return new Promise((resolve) => {
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
      if (opts.until?.test(stdout)) child.kill('SIGTERM');
    });
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    if (opts.input) child.stdin.write(opts.input);
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

async function dataDir(): Promise<string> {
  const data = await tempDir('core-cli-start-');
  onTestFinished(() => data.cleanup());
  return data.dir;
}

/** A port something else listens on for the length of the test. */
async function busyPort(): Promise<number> {
  const holder = createServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  onTestFinished(() => new Promise<void>((resolve) => holder.close(() => resolve())));
  return (holder.address() as AddressInfo).port;
}

/** One line naming the setting, no stack trace, no JSON. */
function expectOneLine(ran: Ran, setting: string): void {
  expect(ran.code).toBe(2);
  const lines = ran.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(new RegExp(`^core-server: ${setting}\\b`));
  expect(ran.stderr).not.toMatch(/\n\s+at /);
}

describe('core-server --version and --help', () => {
  it('prints the one version', async () => {
    const ran = await cli(['--version'], {});
    expect(ran).toMatchObject({ code: 0, stdout: `core-server ${API_VERSION}\n` });
  });

  it('lists every setting', async () => {
    const ran = await cli(['--help'], {});
    expect(ran.code).toBe(0);
    for (const { name } of SETTINGS) expect(ran.stdout).toContain(`  ${name} `);
  });
});

describe('catalog --check', () => {
  it("checks the package's own catalogue wherever it is started", async () => {
    const elsewhere = await dataDir();
    const child = spawn(process.execPath, [path.join(root, 'dist/src/cli.js'), 'catalog', '--check'], { cwd: elsewhere, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const code = await new Promise((resolve) => child.once('exit', resolve));
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
  });
});

describe('serve', () => {
  it('says in one human line where it listens', async () => {
    const ran = await cli(['serve'], { PORT: '0', CORE_DATA_DIR: await dataDir() }, { until: /\n/ });
    expect(ran.stdout).toMatch(
      new RegExp(
        `^core-server ${API_VERSION.replaceAll('.', '\\.')} listening on http://127\\.0\\.0\\.1:\\d+ \\(explorer http://127\\.0\\.0\\.1:\\d+/, MCP http://127\\.0\\.0\\.1:\\d+/api/mcp; data in /`,
      ),
    );
  });

  it('refuses a data directory that is a file, naming CORE_DATA_DIR', async () => {
    const file = path.join(await dataDir(), 'plain-file');
    await writeFile(file, 'x');
    expectOneLine(await cli(['serve'], { PORT: '0', CORE_DATA_DIR: file }), 'CORE_DATA_DIR');
  });

  it('refuses a data directory under a file, naming CORE_DATA_DIR', async () => {
    const file = path.join(await dataDir(), 'plain-file');
    await writeFile(file, 'x');
    expectOneLine(await cli(['serve'], { PORT: '0', CORE_DATA_DIR: path.join(file, 'data') }), 'CORE_DATA_DIR');
  });

  it.each(['not a url', 'mysql://root@127.0.0.1:3306/test'])('refuses DATABASE_URL=%s, naming it', async (url) => {
    expectOneLine(await cli(['serve'], { PORT: '0', DATABASE_URL: url }), 'DATABASE_URL');
  });

  it('refuses an unreachable database, naming DATABASE_URL and the reason', async () => {
    const port = await busyPort();
    // A TCP port that answers but speaks no PostgreSQL would hang; a closed one refuses at once.
    const closed = await new Promise<number>((resolve) => {
      const probe = createServer();
      probe.listen(0, '127.0.0.1', () => {
        const free = (probe.address() as AddressInfo).port;
        probe.close(() => resolve(free));
      });
    });
    expect(closed).not.toBe(port);
    const ran = await cli(['serve'], { PORT: '0', DATABASE_URL: `postgres://postgres@127.0.0.1:${closed}/test` });
    expectOneLine(ran, 'DATABASE_URL');
    expect(ran.stderr).toContain('ECONNREFUSED');
  });

  it('refuses a port in use, naming PORT', async () => {
    const port = await busyPort();
    expectOneLine(await cli(['serve'], { PORT: String(port), CORE_DATA_DIR: await dataDir() }), 'PORT');
  });
});

/** A port nothing listens on: a connection to it is refused at once. */
function closedPort(): Promise<number> {
  return new Promise<number>((resolve) => {
    const probe = createServer();
    probe.listen(0, '127.0.0.1', () => {
      const free = (probe.address() as AddressInfo).port;
      probe.close(() => resolve(free));
    });
  });
}

const initializeLine = `${JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
})}\n`;

/** The client's initialize answered with an error naming `setting` (and on stderr, one line, no stack), then exit 1. */
function expectRefusedInitialize(ran: Ran, setting: string): string {
  expect(ran.code).toBe(1);
  const answer = JSON.parse(ran.stdout.trim()) as { id: number; error: { message: string } };
  expect(answer.id).toBe(1);
  expect(answer.error.message).toMatch(new RegExp(`^${setting}\\b`));
  expect(ran.stderr.trim().split('\n')).toHaveLength(1);
  expect(ran.stderr).toContain(setting);
  expect(ran.stderr).not.toMatch(/\n\s+at /);
  return answer.error.message;
}

describe('mcp configuration errors reach the client', () => {
  it.each(['not a url', 'mysql://root@127.0.0.1:3306/test'])('answers initialize with the reason for DATABASE_URL=%s', async (url) => {
    expectRefusedInitialize(await cli(['mcp'], { DATABASE_URL: url }, { input: initializeLine }), 'DATABASE_URL');
  });

  it('answers initialize with the reason when the database does not accept connections', async () => {
    const port = await closedPort();
    const message = expectRefusedInitialize(
      await cli(['mcp'], { DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/test` }, { input: initializeLine }),
      'DATABASE_URL',
    );
    expect(message).toContain('ECONNREFUSED');
  });

  it('answers initialize with the reason for any other refused setting', async () => {
    expectRefusedInitialize(await cli(['mcp'], { CORE_DATA_DIR: await dataDir(), PORT: 'eighty' }, { input: initializeLine }), 'PORT');
  });
});

// A refusal only PostgreSQL itself gives comes after initialize: the client's first call carries it.
describe.runIf(process.env.DATABASE_URL)('mcp on a database that refuses the connection (PostgreSQL)', () => {
  it("answers the client's first call with the reason, naming DATABASE_URL, then exits", async () => {
    const url = new URL(process.env.DATABASE_URL!);
    url.pathname = '/core_no_such_database';
    const toolsList = `${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} })}\n`;
    const ran = await cli(['mcp'], { DATABASE_URL: url.href }, { input: initializeLine + toolsList });
    const answers = ran.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: number; result?: unknown; error?: { message: string } });
    expect(answers.find((a) => a.id === 1)?.result).toBeDefined();
    expect(answers.find((a) => a.id === 2)?.error?.message).toMatch(
      /DATABASE_URL: cannot use PostgreSQL at .*core_no_such_database \(the database does not exist, 3D000\)/,
    );
    expect(ran.code).toBe(1);
    expect(ran.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('mcp', () => {
  it("answers the client's initialize with the reason when the data directory cannot be used", async () => {
    const file = path.join(await dataDir(), 'plain-file');
    await writeFile(file, 'x');
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    };
    const ran = await cli(['mcp'], { CORE_DATA_DIR: path.join(file, 'data') }, { input: `${JSON.stringify(initialize)}\n` });
    expect(ran.code).toBe(1);
    const answer = JSON.parse(ran.stdout.trim()) as { id: number; error: { message: string } };
    expect(answer.id).toBe(1);
    expect(answer.error.message).toMatch(/^CORE_DATA_DIR: cannot use .*plain-file\/data as the data directory/);
  });
});
