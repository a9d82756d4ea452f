import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, rmdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { startHttpServer, type RunningServer } from '../../src/server.js';
import { testConfig } from '../helpers/server.js';

/**
 * `RESERVE_KB=0` runs it without the free-space reserve (the refusals then come from real ENOSPC inside writes).
 *
 * The embedded store on a real, small, full disk: a 2 MiB tmpfs holds the data directory, a filler file
 * takes most of it, and events are appended through the real HTTP server until the node refuses them.
 * Needs root (mount); where mounting is not permitted the test says so and skips, and the unit test
 * `test/unit/storage/lowdb-disk-full.test.ts` still covers the refusal through injected faults.
 */
const RESERVE_KB = Number(process.env.RESERVE_KB ?? 256);

let mountPoint: string | undefined;
let cannotMount: string | undefined;

beforeAll(async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'core-diskfull-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=2m,mode=0700', 'tmpfs', dir], { stdio: 'pipe' });
    mountPoint = dir;
  } catch (error) {
    cannotMount = `cannot mount a tmpfs here (${String((error as { stderr?: unknown }).stderr ?? error).trim() || 'mount failed'}); the disk-full refusal is covered by test/unit/storage/lowdb-disk-full.test.ts instead`;
    await rmdir(dir).catch(() => undefined);
  }
});

afterAll(async () => {
  if (mountPoint === undefined) return;
  await running?.stop(1000).catch(() => undefined);
  // Lazily if something still holds a file there: the mount never outlives the test.
  try {
    execFileSync('umount', [mountPoint], { stdio: 'pipe' });
  } catch {
    execFileSync('umount', ['-l', mountPoint], { stdio: 'pipe' });
  }
  await rm(mountPoint, { recursive: true, force: true });
});

/** The server of the test, stopped by `afterAll` if the test fails half way. */
let running: RunningServer | undefined;

async function start(dataDir: string): Promise<RunningServer> {
  const config = testConfig(dataDir, { CORE_DISK_RESERVE_KB: String(RESERVE_KB), CORE_RATE_LIMIT: 'off' });
  running = await startHttpServer({ config, log: createLogger('silent') });
  return running;
}

async function call(server: RunningServer, method: string, p: string, opts: { key?: string; body?: unknown } = {}) {
  const headers: Record<string, string> = {};
  if (opts.key) headers.authorization = `Bearer ${opts.key}`;
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${server.url}${p}`, { method, headers, ...(opts.body !== undefined ? { body: JSON.stringify(opts.body) } : {}) });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? (JSON.parse(text) as any) : undefined };
}

/** Every `fill` row of the machine, oldest first, paged through the activity feed. */
async function fillRows(server: RunningServer, slug: string, key: string): Promise<Array<{ seq: number; transition_id: string }>> {
  const rows: Array<{ seq: number; transition_id: string }> = [];
  let cursor: string | null = null;
  do {
    const page = await call(server, 'GET', `/api/chain/${slug}/activity?type=fill&limit=200${cursor ? `&cursor=${cursor}` : ''}`, { key });
    expect(page.status).toBe(200);
    rows.push(...page.body.rows);
    cursor = page.body.next_cursor;
  } while (cursor !== null);
  return rows.reverse();
}

/** Polls readiness until it answers `status` (a wait that ends on a state; the limit only catches a hang). */
async function readinessBecomes(server: RunningServer, status: number): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    if ((await call(server, 'GET', '/api/health/ready')).status === status) return;
    if (Date.now() > deadline) throw new Error(`readiness never answered ${status}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('lowdb on a full tmpfs', () => {
  it('refuses appends with 503 once the disk is full, keeps every acknowledged row and none of the refused ones across a restart, and resumes by itself once space is freed', async (ctx) => {
    if (mountPoint === undefined) return ctx.skip(cannotMount);
    const dataDir = path.join(mountPoint, 'data');
    let server = await start(dataDir);
    const minted = await call(server, 'POST', '/api/demo-key/mint', { body: {} });
    const key = minted.body.key as string;
    const slug = 'disk-full';
    expect((await call(server, 'POST', '/api/chain/state-machines', { key, body: { slug } })).status).toBe(200);

    // The filler leaves the reserve and a little more: a few hundred appends fill the rest.
    const free = Number(execFileSync('df', ['--output=avail', '-B1', mountPoint]).toString().split('\n')[1]);
    const filler = path.join(mountPoint, 'filler');
    await writeFile(filler, Buffer.alloc(Math.max(0, free - (RESERVE_KB + 160) * 1024)));

    const acknowledged = new Set<string>();
    const statuses = new Map<number, number>();
    let refusals = 0;
    let i = 0;
    // Batches of 8 concurrent appends (with payloads, so the payload vault writes too) until 40 were refused.
    while (refusals < 40) {
      expect(i).toBeLessThan(20_000);
      const batch = await Promise.all(
        Array.from({ length: 8 }, () =>
          call(server, 'POST', `/api/chain/${slug}/event`, { key, body: { type: 'fill', payload: { i: i++, pad: 'x'.repeat(200) } } }),
        ),
      );
      for (const res of batch) {
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        if (res.status === 200) acknowledged.add(res.body.transition_id);
        else {
          refusals++;
          expect(res.status).toBe(503);
          expect(res.body.error.code).toBe('UNAVAILABLE');
          expect(res.body.error.message).toMatch(/disk is full.*nothing of it was stored/);
          expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
        }
      }
    }
    expect([...statuses.keys()].sort()).toEqual([200, 503]);
    expect(acknowledged.size).toBeGreaterThan(0);

    const unready = await call(server, 'GET', '/api/health/ready');
    expect(unready.status).toBe(503);
    expect(unready.body.error.details.checks.disk).toMatchObject({ ok: false, detail: expect.stringContaining('free') });
    expect((await call(server, 'GET', '/api/health')).body).toMatchObject({ ok: true, ready: false, checks: { disk: { ok: false } } });
    const metrics = await fetch(`${server.url}/api/metrics`).then((r) => r.text());
    expect(metrics).toMatch(/^core_store_ready 0$/m);
    expect(metrics).toMatch(/^core_store_check_up\{check="disk"\} 0$/m);
    expect(metrics).toMatch(/^core_unavailable_responses_total\{surface="rest"\} [1-9]/m);

    // What is in the chain now is exactly what was acknowledged.
    expect(new Set((await fillRows(server, slug, key)).map((r) => r.transition_id))).toEqual(acknowledged);

    // Space comes back: the node becomes ready by itself, and appends chain on.
    await rm(filler);
    await readinessBecomes(server, 200);
    for (let k = 0; k < 5; k++) {
      const res = await call(server, 'POST', `/api/chain/${slug}/event`, { key, body: { type: 'fill', payload: { after: k } } });
      expect(res.status).toBe(200);
      acknowledged.add(res.body.transition_id);
    }
    const valid = await call(server, 'GET', `/api/chain/${slug}/pohc/validate`, { key });
    expect(valid.body).toMatchObject({ valid: true, broken_at: null });

    // A restart on the same directory finds the acknowledged rows, none of the refused ones.
    await server.stop(1000);
    server = await start(dataDir);
    try {
      const rows = await fillRows(server, slug, key);
      expect(rows.length).toBe(acknowledged.size);
      expect(new Set(rows.map((r) => r.transition_id))).toEqual(acknowledged);
      expect((await call(server, 'GET', `/api/chain/${slug}/pohc/validate`, { key })).body).toMatchObject({ valid: true });
      console.info(
        `disk-full: ${acknowledged.size} acknowledged (5 after the space came back), ${refusals} refused with 503, statuses ${JSON.stringify([...statuses])}`,
      );
    } finally {
      await server.stop(1000);
    }
  }, 180_000);
});
