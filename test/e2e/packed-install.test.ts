import { execFile, spawn } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_VERSION } from '../../src/config.js';
import { mcpJson } from '../helpers/mcp-json.js';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../..', import.meta.url));
/** As root (CI), the installed command runs as `nobody`, an ordinary user whose home does not exist. */
const asNobody = process.getuid?.() === 0;
const user = asNobody ? { uid: 65534, gid: 65534 } : {};

let work: string;
let bin: string;
let readOnlyCwd: string;

beforeAll(async () => {
  work = await mkdtemp(path.join(os.tmpdir(), 'core-packed-'));
  await chmod(work, 0o755);
  // dist/ is built by `pretest`; packing must not build again.
  const packed = await run('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', work], { cwd: root });
  const tarball = path.join(work, packed.stdout.trim().split('\n').at(-1)!);
  const prefix = path.join(work, 'prefix');
  await run('npm', ['install', '--prefix', prefix, '--omit=dev', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', tarball], { cwd: work });
  await run('chmod', ['-R', 'a+rX', prefix]);
  bin = path.join(prefix, 'node_modules', '.bin', 'core-server');
  readOnlyCwd = path.join(work, 'readonly');
  await mkdir(readOnlyCwd);
  await chmod(readOnlyCwd, 0o555);
});
afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The installed `core-server`, started as a client would: another folder, a plain environment. */
function installed(args: string[], env: Record<string, string>, input?: string): Promise<Ran> {
  const child = spawn(bin, args, {
    cwd: readOnlyCwd,
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
    ...user,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => {
    stdout += c.toString();
    // One answer per request sent: then end stdin, as a client closing does.
    if (input && stdout.split('\n').filter(Boolean).length >= input.split('\n').filter(Boolean).length) child.stdin.end();
  });
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  if (input) child.stdin.write(input);
  else child.stdin.end();
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stdout, stderr })));
}

const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'packed', version: '1' } },
});
const toolsList = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} });

describe('the packed package, installed into a fresh prefix', () => {
  it('answers --version with the one version', async () => {
    const ran = await installed(['--version'], {});
    expect(ran).toMatchObject({ code: 0, stdout: `core-server ${API_VERSION}\n` });
  });

  it('keeps its data in the per-user data directory, never the folder it was started in', async () => {
    const home = path.join(work, 'home');
    await mkdir(home, { mode: 0o755 });
    if (asNobody) await run('chown', ['65534:65534', home]);
    const ran = await installed(['mcp'], { HOME: home, XDG_DATA_HOME: path.join(home, 'data') }, `${initialize}\n${toolsList}\n`);
    const answers = ran.stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { id: number; result?: { tools?: unknown[] } });
    expect(answers.find((a) => a.id === 1)?.result).toBeDefined();
    expect(answers.find((a) => a.id === 2)?.result?.tools, ran.stdout + ran.stderr).toHaveLength(57);
    const dataDir = path.join(home, 'data', 'core-server');
    expect((await stat(dataDir)).mode & 0o077).toBe(0);
    expect(await readdir(readOnlyCwd)).toEqual([]);
  });

  it("starts from mcp.json's entry as copied, the installed command found on PATH", async () => {
    const entry = mcpJson().mcpServers.core;
    const home = path.join(work, 'home-mcp-json');
    await mkdir(home, { mode: 0o755 });
    if (asNobody) await run('chown', ['65534:65534', home]);
    const child = spawn(entry.command, entry.args, {
      cwd: readOnlyCwd,
      env: { PATH: `${path.dirname(bin)}:${process.env.PATH ?? ''}`, HOME: home, ...entry.env },
      stdio: ['pipe', 'pipe', 'pipe'],
      ...user,
    });
    let stdout = '';
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
      if (stdout.includes('\n')) child.stdin.end();
    });
    child.stdin.write(`${initialize}\n`);
    const code = await new Promise((resolve) => child.once('exit', resolve));
    expect((JSON.parse(stdout.trim()) as { result?: { serverInfo?: { version?: string } } }).result?.serverInfo?.version).toBe(API_VERSION);
    expect(code).toBe(0);
    expect((await stat(path.join(home, '.local', 'share', 'core-server'))).isDirectory()).toBe(true);
  });

  it('refuses before initialize succeeds, naming CORE_DATA_DIR, when the per-user folder cannot be written', async () => {
    // nobody's home, /nonexistent, cannot be created by nobody; as another user, a folder made read-only.
    const home = asNobody ? '/nonexistent' : path.join(readOnlyCwd, 'home');
    const ran = await installed(['mcp'], { HOME: home }, `${initialize}\n`);
    const answer = JSON.parse(ran.stdout.trim()) as { id: number; error?: { message: string } };
    expect(answer.id).toBe(1);
    expect(answer.error?.message).toMatch(/^CORE_DATA_DIR: cannot use \S+\/\.local\/share\/core-server as the data directory/);
    expect(ran.code).toBe(1);
  });
});
