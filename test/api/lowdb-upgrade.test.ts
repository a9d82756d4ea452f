import { spawn } from 'node:child_process';
import { readFile, stat, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, onTestFinished } from 'vitest';
import { DATA_FORMAT, DATA_FORMAT_FILE } from '../../src/storage/lowdb/data-format.js';
import { startServerOn } from '../helpers/durable-server.js';
import { createMachine, mintKey, tempDir } from '../helpers/server.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

async function dataDir(): Promise<string> {
  const { dir, cleanup } = await tempDir('core-lowdb-upgrade-');
  onTestFinished(cleanup);
  return dir;
}

/** Writes a machine with a few events through a server on `dir`, and stops it. */
async function seed(dir: string): Promise<string> {
  const server = await startServerOn(dir);
  try {
    const { key } = await mintKey(server);
    await createMachine(server, key, { slug: 'kept' });
    for (let i = 0; i < 3; i++) expect((await server.call('POST', '/api/chain/kept/event', { key, body: { type: 'x', payload: { i } } })).status).toBe(200);
    return key;
  } finally {
    await server.stop(1000);
  }
}

/** `core-server serve` on `dir`: how it exited, or 'listening' (then it is killed). */
function startBuilt(dir: string): Promise<{ code: number | null; stderr: string } | 'listening'> {
  const child = spawn(process.execPath, ['dist/src/cli.js', 'serve'], {
    cwd: root,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', CORE_DATA_DIR: dir, DATABASE_URL: '', DATABASE_SCHEMA: '' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (/"msg":"listening"/.test(stderr)) {
        clearTimeout(timer);
        child.kill('SIGKILL');
        resolve('listening');
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

describe('rolling upgrades on lowdb: a data directory written by another version', () => {
  it('marks a new data directory with its format, readable by its owner only', async () => {
    const dir = await dataDir();
    await seed(dir);
    const file = join(dir, DATA_FORMAT_FILE);
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ format: DATA_FORMAT, writable_from: 1 });
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });

  it('refuses to start on a directory a newer version wrote in a format it may not write, in one line saying what to do', async () => {
    const dir = await dataDir();
    await seed(dir);
    const marker = JSON.stringify({ format: DATA_FORMAT + 1, writable_from: DATA_FORMAT + 1 });
    await writeFile(join(dir, DATA_FORMAT_FILE), marker);

    await expect(startServerOn(dir)).rejects.toThrow(
      new RegExp(`format ${DATA_FORMAT + 1}, newer than this server knows \\(${DATA_FORMAT}\\).*run the newer server, or restore a backup`),
    );
    const started = await startBuilt(dir);
    expect(started).not.toBe('listening');
    const { code, stderr } = started as { code: number | null; stderr: string };
    expect(code).toBe(1);
    const lines = stderr.split('\n').filter((line) => line.includes('newer than this server knows'));
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: 'error', msg: 'fatal' });
    // The refused server left the directory as the newer one wrote it, and unlocked.
    expect(await readFile(join(dir, DATA_FORMAT_FILE), 'utf8')).toBe(marker);
    await expect(stat(join(dir, '.lock'))).rejects.toThrow();
  });

  it('starts and keeps its promises on a newer format that declares it may still write, leaving the marker as it was', async () => {
    const dir = await dataDir();
    const key = await seed(dir);
    const marker = JSON.stringify({ format: DATA_FORMAT + 1, writable_from: DATA_FORMAT });
    await writeFile(join(dir, DATA_FORMAT_FILE), marker);

    const server = await startServerOn(dir);
    try {
      expect((await server.call('POST', '/api/chain/kept/event', { key, body: { type: 'after' } })).status).toBe(200);
      const validation = await server.call('GET', '/api/chain/kept/pohc/validate', { key });
      expect(validation.body).toMatchObject({ valid: true });
      expect(validation.body.count).toBeGreaterThanOrEqual(4);
    } finally {
      await server.stop(1000);
    }
    expect(await readFile(join(dir, DATA_FORMAT_FILE), 'utf8')).toBe(marker);
  });

  it('opens a directory written before format markers (format 1) with its data, and marks it', async () => {
    const dir = await dataDir();
    const key = await seed(dir);
    await unlink(join(dir, DATA_FORMAT_FILE));
    const server = await startServerOn(dir);
    try {
      const validation = await server.call('GET', '/api/chain/kept/pohc/validate', { key });
      expect(validation.body).toMatchObject({ valid: true });
    } finally {
      await server.stop(1000);
    }
    expect(JSON.parse(await readFile(join(dir, DATA_FORMAT_FILE), 'utf8'))).toEqual({ format: DATA_FORMAT, writable_from: 1 });
  });
});
