import { chmod, lstat, mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { createLowdbStore } from '../../src/storage/lowdb/lowdb.store.js';
import { startHttpServer, type RunningServer } from '../../src/server.js';
import { testConfig } from '../helpers/server.js';

/**
 * Secrets at rest are private: the data directory holds the key that signs
 * session JWTs, so nothing in it may be readable by another local user, whichever code path made it.
 */
const onPostgres = process.env.CORE_TEST_BACKEND === 'postgres';
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

/** Every path under `dir` (itself included) whose mode grants anything to group or other, with that mode. */
async function loosePaths(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (p: string) => {
    const st = await lstat(p);
    if ((st.mode & 0o077) !== 0) out.push(`${path.relative(dir, p) || '.'} ${(st.mode & 0o777).toString(8)}`);
    if (st.isDirectory()) for (const name of await readdir(p)) await walk(path.join(p, name));
  };
  await walk(dir);
  return out;
}

/** Every path under `dir` (itself included), for a check that the walk saw something. */
async function allPaths(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (p: string) => {
    out.push(path.relative(dir, p) || '.');
    if ((await lstat(p)).isDirectory()) for (const name of await readdir(p)) await walk(path.join(p, name));
  };
  await walk(dir);
  return out;
}

/** A parent folder of our own; the data directory inside it does not exist yet, so the server creates it. */
async function freshParent(): Promise<string> {
  const parent = await mkdtemp(path.join(os.tmpdir(), 'core-modes-'));
  cleanups.push(() => rm(parent, { recursive: true, force: true }));
  return parent;
}

async function serve(
  dataDir: string,
  warnings: string[] = [],
): Promise<RunningServer & { call: (m: string, p: string, key?: string, body?: unknown) => Promise<any> }> {
  const log = createLogger('warn', {}, (line) => warnings.push(line));
  const running = await startHttpServer({ config: testConfig(dataDir), log });
  const call = async (method: string, p: string, key?: string, body?: unknown) => {
    const res = await fetch(`${running.url}${p}`, {
      method,
      headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return res.json();
  };
  return Object.assign(running, { call });
}

/** A few writes that touch documents, journals, logs and the node keys. */
async function someWrites(server: Awaited<ReturnType<typeof serve>>) {
  const { key } = await server.call('POST', '/api/demo-key/mint');
  expect((await server.call('POST', '/api/chain/state-machines', key, { slug: 'modes-lab' })).ok).toBe(true);
  expect((await server.call('POST', '/api/chain/modes-lab/event', key, { type: 'note', payload: { a: 1 } })).ok).toBe(true);
  expect((await server.call('POST', '/api/chain/modes-lab/api-keys', key, { name: 'ci' })).ok).toBe(true);
  // A signed answer (the node's Ed25519 key) and a page cursor (the cursor seal).
  await server.call('GET', '/api/auth/jwks');
  await server.call('GET', '/api/chain/modes-lab/activity?limit=1', key);
  return key as string;
}

describe.skipIf(onPostgres)('the data directory on disk', () => {
  it('is created 0700 with every file and folder in it private, after a real start and a few writes', async () => {
    const dataDir = path.join(await freshParent(), 'data');
    const server = await serve(dataDir);
    await someWrites(server);
    expect(await loosePaths(dataDir)).toEqual([]);
    await server.stop(1000);
    // What the store writes at close (snapshots, renamed temp files) too.
    expect(await loosePaths(dataDir)).toEqual([]);
    expect((await lstat(dataDir)).mode & 0o777).toBe(0o700);
    const files = await allPaths(dataDir);
    expect(files).toEqual(expect.arrayContaining(['docs', 'logs', expect.stringMatching(/^docs\/node-keys/)]));
  });

  it('tightens an existing directory left group- and world-readable (0755 folders, 0644 files) at start, and says so', async () => {
    const dataDir = path.join(await freshParent(), 'data');
    const first = await serve(dataDir);
    const key = await someWrites(first);
    await first.stop(1000);
    // As an older server left it.
    const loosen = async (p: string) => {
      const st = await lstat(p);
      await chmod(p, st.isDirectory() ? 0o755 : 0o644);
      if (st.isDirectory()) for (const name of await readdir(p)) await loosen(path.join(p, name));
    };
    await loosen(dataDir);
    expect((await loosePaths(dataDir)).length).toBe((await allPaths(dataDir)).length);

    const warnings: string[] = [];
    const second = await serve(dataDir, warnings);
    cleanups.push(() => second.stop(1000));
    expect(await loosePaths(dataDir)).toEqual([]);
    const told = warnings.map((l) => JSON.parse(l)).find((e) => String(e.message).startsWith('data directory made private'));
    expect(told, warnings.join('\n')).toMatchObject({ file: dataDir, message: expect.stringMatching(/keys as exposed \(\d+ paths\)$/) });
    // The data is still there, and still served to its owner.
    expect((await second.call('GET', '/api/chain/state-machines/modes-lab', key)).machine).toMatchObject({ slug: 'modes-lab' });
  });

  it('keeps what a compaction writes private too: the snapshot, its temp file renamed into place, the new journal generation', async () => {
    const dataDir = path.join(await freshParent(), 'store');
    const store = createLowdbStore({ dataDir, fsync: false });
    await store.open();
    for (let n = 0; n < 10; n++) await store.docs.insert('counters', `c${n}`, { n: 0 });
    for (let n = 1; n <= 1200; n++) await store.docs.put('counters', `c${n % 10}`, { n });
    await store.logs.append('chain/x', () => ({ type: 'note', tick: 1 }) as never);
    await store.close();
    const files = await allPaths(dataDir);
    expect(files).toEqual(expect.arrayContaining(['docs/counters.json', expect.stringMatching(/^docs\/counters\..*1/)]));
    expect(await loosePaths(dataDir)).toEqual([]);
  });
});
