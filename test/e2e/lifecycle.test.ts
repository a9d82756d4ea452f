import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/server.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
let data: { dir: string; cleanup: () => Promise<void> };

beforeAll(async () => {
  data = await tempDir('core-life-');
});
afterAll(async () => {
  await data.cleanup();
});

function serve(): Promise<{ child: ChildProcess; url: string; logs: () => string; stdout: () => string }> {
  const child = spawn(process.execPath, ['dist/src/cli.js', 'serve'], {
    cwd: root,
    env: { ...process.env, PORT: '0', CORE_DATA_DIR: data.dir, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  let out = '';
  child.stdout!.on('data', (c) => (out += c));
  return new Promise((resolve, reject) => {
    child.stderr!.on('data', (c) => {
      err += c;
      const m = /"url":"(http:[^"]+)"/.exec(err);
      if (m) resolve({ child, url: m[1]!, logs: () => err, stdout: () => out });
    });
    child.once('exit', (code) => reject(new Error(`server exited ${code}: ${err}`)));
  });
}

async function post(url: string, path: string, key: string | undefined, body: unknown) {
  const res = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

describe('the server process', () => {
  it('logs JSON lines on stderr, says where it listens on stdout, and on SIGTERM finishes in-flight writes before exiting', async () => {
    const first = await serve();
    const { key } = (await post(first.url, '/api/demo-key/mint', undefined, {})).body;
    await post(first.url, '/api/chain/state-machines', key, { slug: 'graceful' });
    const writes = Array.from({ length: 30 }, (_, i) => post(first.url, '/api/chain/graceful/event', key, { payload: { i } }).catch(() => null));
    await new Promise((r) => setTimeout(r, 5));
    const exited = new Promise<number | null>((r) => first.child.once('exit', (code) => r(code)));
    first.child.kill('SIGTERM');
    const settled = await Promise.all(writes);
    expect(await exited).toBe(0);
    const accepted = settled.filter((r) => r?.status === 200).length;
    for (const r of settled) if (r) expect([200, 503]).toContain(r.status);

    for (const line of first.logs().trim().split('\n')) expect(() => JSON.parse(line)).not.toThrow();
    // stdout holds one human line: where the server listens.
    expect(first.stdout()).toMatch(/^core-server \S+ listening on http:\/\/127\.0\.0\.1:\d+ [^\n]*\n$/);

    const second = await serve();
    try {
      const rows = (await (await fetch(`${second.url}/api/chain/graceful/activity?limit=100`, { headers: { authorization: `Bearer ${key}` } })).json()) as any;
      expect(rows.rows).toHaveLength(accepted + 1);
      for (let i = 0; i < rows.rows.length - 1; i++) expect(rows.rows[i].prev_hash).toBe(rows.rows[i + 1].state_hash);
    } finally {
      second.child.kill('SIGTERM');
      await new Promise((r) => second.child.once('exit', r));
    }
  });

  it('speaks only MCP on stdout under `mcp`', async () => {
    const child = spawn(process.execPath, ['dist/src/cli.js', 'mcp'], {
      cwd: root,
      env: { ...process.env, CORE_DATA_DIR: data.dir, LOG_LEVEL: 'debug' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    const send = (m: unknown) => child.stdin.write(`${JSON.stringify(m)}\n`);
    send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'core_pulse', arguments: { action: 'pulse' } } });
    send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'core_spin_up', arguments: {} } });
    await new Promise<void>((resolve) => {
      const check = setInterval(() => {
        if (out.includes('"id":3')) {
          clearInterval(check);
          resolve();
        }
      }, 10);
    });
    child.stdin.end();
    await new Promise((r) => child.once('exit', r));
    const lines = out.trim().split('\n');
    expect(lines).toHaveLength(3);
    for (const line of lines) expect(JSON.parse(line).jsonrpc).toBe('2.0');
    const spin = lines.map((l) => JSON.parse(l)).find((m) => m.id === 3);
    expect(spin.result.isError).toBe(true);
    expect(spin.result.structuredContent.error.code).toBe('UNAUTHENTICATED');
  });
});
