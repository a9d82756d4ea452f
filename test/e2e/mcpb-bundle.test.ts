import { execFile, spawn } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, readdir, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_VERSION } from '../../src/config.js';

// The .mcpb bundle as Claude Desktop gets it: built by `npm run bundle` (the official mcpb CLI validates
// and packs it), checked again and unpacked by that CLI, then started exactly as its manifest says, from
// an unrelated read-only folder, with the optional key left unfilled.

const run = promisify(execFile);
const root = fileURLToPath(new URL('../..', import.meta.url));
const mcpb = path.join(root, 'node_modules', '.bin', 'mcpb');

let work: string;
let bundle: string;
let unpacked: string;

beforeAll(async () => {
  work = await mkdtemp(path.join(os.tmpdir(), 'core-mcpb-test-'));
  // dist/ is built by `pretest`; the script packs what `npm pack` ships, with its production dependencies.
  const built = await run(process.execPath, ['scripts/build-mcpb.mjs', path.join(work, 'out')], { cwd: root, maxBuffer: 16 * 1024 * 1024 });
  bundle = built.stdout.trim().split('\n').at(-1)!;
  unpacked = path.join(work, 'unpacked');
  await run(mcpb, ['unpack', bundle, unpacked]);
}, 600_000);
afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

interface Manifest {
  version: string;
  server: { mcp_config: { command: string; args: string[]; env: Record<string, string> } };
  user_config: Record<string, { sensitive?: boolean; required?: boolean }>;
}

describe('the .mcpb bundle', () => {
  it('is named for the one version, and the official CLI reads it', async () => {
    expect(path.basename(bundle)).toBe(`core-server-${API_VERSION}.mcpb`);
    const info = await run(mcpb, ['info', bundle]);
    expect(info.stdout).toContain('core-server');
    const manifest = JSON.parse(await readFile(path.join(unpacked, 'manifest.json'), 'utf8')) as Manifest;
    expect(manifest.version).toBe(API_VERSION);
    expect(manifest.user_config.api_key).toMatchObject({ sensitive: true, required: false });
    await run(mcpb, ['validate', path.join(unpacked, 'manifest.json')]);
  });

  it('starts as its manifest says, keeps data in the per-user folder, and serves the 57 tools', async () => {
    const manifest = JSON.parse(await readFile(path.join(unpacked, 'manifest.json'), 'utf8')) as Manifest;
    const { command, args, env } = manifest.server.mcp_config;
    expect(command).toBe('node');
    const home = path.join(work, 'home');
    await mkdir(home);
    const readOnly = path.join(work, 'readonly');
    await mkdir(readOnly);
    await chmod(readOnly, 0o555);
    // The client fills ${__dirname}; an optional field left empty may reach the server unfilled.
    const child = spawn(
      process.execPath,
      args.map((a) => a.replaceAll('${__dirname}', unpacked)),
      {
        cwd: readOnly,
        env: { PATH: process.env.PATH ?? '', HOME: home, XDG_DATA_HOME: path.join(home, 'data'), XDG_STATE_HOME: path.join(home, 'state'), ...env },
        stdio: ['pipe', 'pipe', 'pipe'],
      },
    );
    const requests = [
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'mcpb', version: '1' } } },
      { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} },
      { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'core_account', arguments: { action: 'whoami' } } },
    ];
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
      if (stdout.split('\n').filter(Boolean).length >= requests.length) child.stdin.end();
    });
    child.stdin.write(requests.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const code = await new Promise((resolve) => child.once('exit', resolve));
    const answers = stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { id: number; result?: any });
    expect(answers.find((a) => a.id === 1)?.result?.serverInfo, stderr).toMatchObject({ name: 'core-server', version: API_VERSION });
    expect(answers.find((a) => a.id === 2)?.result?.tools).toHaveLength(57);
    // The unfilled `${user_config.api_key}` counts as no key: anonymous, not an unknown key with a warning.
    const whoami = answers.find((a) => a.id === 3)?.result;
    expect(whoami?.structuredContent).toMatchObject({ authenticated: false });
    expect(JSON.stringify(whoami)).not.toContain('not known to this server');
    expect(code).toBe(0);
    expect((await stat(path.join(home, 'data', 'core-server'))).isDirectory()).toBe(true);
    expect(await readdir(readOnly)).toEqual([]);
  });
});
