import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { verifySeal } from '../../src/domain/chain/checkpoint.js';
import { createFakeClock, type FakeClock } from '../../src/lib/clock.js';
import { createLogger } from '../../src/log.js';
import { startHttpServer, type RunningServer } from '../../src/server.js';
import { runVerify } from '../../src/verify-command.js';
import { createMachine, mintKey, tempDir, testConfig } from '../helpers/server.js';

/** A server over a data directory that outlives it, so a test can stop, edit files and start again. */
async function serverOn(dir: string, clock: FakeClock) {
  const running: RunningServer = await startHttpServer({ config: testConfig(dir), log: createLogger('silent'), clock });
  const call = async (method: string, p: string, opts: { key?: string; body?: unknown } = {}) => {
    const headers: Record<string, string> = {};
    if (opts.key) headers.authorization = `Bearer ${opts.key}`;
    if (opts.body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${running.url}${p}`, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };
  return { ...running, call };
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

async function setup(opts: { isPublic?: boolean; events?: number } = {}) {
  const { dir, cleanup } = await tempDir();
  const clock = createFakeClock();
  let server = await serverOn(dir, clock);
  cleanups.push(async () => {
    await server.stop(500);
    await cleanup();
  });
  const owner = await mintKey(server);
  const slug = `m${Math.random().toString(36).slice(2, 10)}`;
  const created = await createMachine(server, owner.key, { slug, isPublic: opts.isPublic ?? false });
  for (let i = 0; i < (opts.events ?? 5); i++) {
    clock.advance(777);
    const res = await server.call('POST', `/api/chain/${slug}/event`, { key: owner.key, body: { type: 'reading', payload: { i } } });
    expect(res.status).toBe(200);
  }
  const restart = async () => {
    await server.stop(500);
    server = await serverOn(dir, clock);
  };
  const logFile = path.join(dir, 'logs', `chain%2F${slug}.jsonl`);
  return {
    dir,
    clock,
    owner,
    slug,
    genesisTick: created.genesis,
    logFile,
    restart,
    get server() {
      return server;
    },
  };
}

async function verifyFiles(dir: string, files: Record<string, unknown>, extra: string[] = []) {
  const names: string[] = [];
  for (const [name, value] of Object.entries(files)) {
    const file = path.join(dir, name);
    await writeFile(file, typeof value === 'string' ? value : JSON.stringify(value));
    names.push(file);
  }
  let out = '';
  const code = await runVerify([...names, ...extra], (t) => void (out += t));
  return { code, out };
}

describe('pohc/validate', () => {
  it('walks every row of a fresh chain and reports it valid with the genesis tick', async () => {
    const t = await setup({ events: 5 });
    const res = await t.server.call('GET', `/api/chain/${t.slug}/pohc/validate`, { key: t.owner.key });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ ok: true, valid: true, count: 6, broken_at: null, genesis_tick: t.genesisTick, from: t.genesisTick });
  });

  it('checks only the rows of a tick window, linking its first row to the row before it', async () => {
    const t = await setup({ events: 5 });
    const from = t.genesisTick + 2;
    const res = await t.server.call('GET', `/api/chain/${t.slug}/pohc/validate?from=${from}&to=${from + 1}`, { key: t.owner.key });
    expect(res.body).toMatchObject({ valid: true, count: 2, from, to: from + 1 });
    const empty = await t.server.call('GET', `/api/chain/${t.slug}/pohc/validate?from=1&to=2`, { key: t.owner.key });
    expect(empty.body).toMatchObject({ valid: true, count: 0, broken_at: null, message: 'empty range' });
  });

  it('answers 404 for a private machine to a stranger and to an anonymous caller, and 400 for a bad tick', async () => {
    const t = await setup({ events: 1 });
    const stranger = await mintKey(t.server);
    expect((await t.server.call('GET', `/api/chain/${t.slug}/pohc/validate`, { key: stranger.key })).status).toBe(404);
    expect((await t.server.call('GET', `/api/chain/${t.slug}/pohc/validate`)).status).toBe(404);
    const bad = await t.server.call('GET', `/api/chain/${t.slug}/pohc/validate?from=-3`, { key: t.owner.key });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('VALIDATION_FAILED');
  });

  it('reports the first altered row after a stored row is edited on disk, and verify fails the export', async () => {
    const t = await setup({ events: 5 });
    await t.restart();
    const lines = (await readFile(t.logFile, 'utf8')).trimEnd().split('\n');
    const row = JSON.parse(lines[3]!);
    row.payload_digest = 'f'.repeat(64);
    lines[3] = JSON.stringify(row);
    await t.server.stop(500);
    await writeFile(t.logFile, lines.join('\n') + '\n');
    await t.restart();

    const res = await t.server.call('GET', `/api/chain/${t.slug}/pohc/validate`, { key: t.owner.key });
    expect(res.body).toMatchObject({ valid: false, broken_at: row.tick, broken_seq: 3, count: 3 });
    expect(res.body.reason).toMatch(/state_hash/);
    // A window after the altered row still links to its stored hash.
    const after = await t.server.call('GET', `/api/chain/${t.slug}/pohc/validate?from=${row.tick + 1}`, { key: t.owner.key });
    expect(after.body).toMatchObject({ valid: true, count: 2 });

    const explore = await t.server.call('GET', `/api/chain/${t.slug}/explore`, { key: t.owner.key });
    const { code, out } = await verifyFiles(t.dir, { 'export.json': explore.body });
    expect(code).toBe(1);
    expect(out).toContain(`first broken row: seq 3 at tick ${row.tick}`);
    expect(out).toContain('NOT VERIFIED');
  });

  it('reports rows removed from the end of the chain once a checkpoint signed them', async () => {
    const t = await setup({ events: 4 });
    expect(await t.server.core.services.checkpoints.checkpointAll()).toBeGreaterThanOrEqual(1);
    await t.server.stop(500);
    const lines = (await readFile(t.logFile, 'utf8')).trimEnd().split('\n');
    await writeFile(t.logFile, lines.slice(0, 3).join('\n') + '\n');
    await t.restart();
    const res = await t.server.call('GET', `/api/chain/${t.slug}/pohc/validate`, { key: t.owner.key });
    expect(res.body).toMatchObject({ valid: false, count: 3, broken_seq: 4, checkpoint: { seq: 4, matches: false } });
    expect(res.body.reason).toMatch(/rows were removed/);
  });
});

describe('seal and offline verify', () => {
  it('returns a signed seal of public heads only, which verifies offline and fails once altered', async () => {
    const pub = await setup({ isPublic: true, events: 2 });
    const priv = await setup({ events: 2 });
    await pub.server.core.services.checkpoints.checkpointAll();
    await priv.server.core.services.checkpoints.checkpointAll();
    const res = await pub.server.call('GET', '/api/chain/seal');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ format: 'core-seal-v1', algorithm: 'Ed25519', key_id: pub.server.core.services.nodeKeys.keyId });
    expect(res.body.checkpoints.map((c: { slug: string }) => c.slug)).toEqual([pub.slug]);
    expect(verifySeal(res.body).valid).toBe(true);
    const other = await priv.server.call('GET', '/api/chain/seal');
    expect(other.body.checkpoints).toEqual([]);

    expect((await verifyFiles(pub.dir, { 'seal.json': res.body })).code).toBe(0);
    const forged = structuredClone(res.body);
    forged.checkpoints[0].seq += 1;
    const bad = await verifyFiles(pub.dir, { 'forged.json': forged });
    expect(bad.code).toBe(1);
    expect(bad.out).toMatch(/does not verify/);
    expect((await verifyFiles(pub.dir, { 'seal.json': res.body }, ['--key', 'ffffffffffffffff'])).code).toBe(1);
  });

  it('seals one private machine for its owner with the live head, and hides it from strangers', async () => {
    const t = await setup({ events: 3 });
    const stranger = await mintKey(t.server);
    expect((await t.server.call('GET', `/api/chain/seal?slug=${t.slug}`, { key: stranger.key })).status).toBe(404);
    expect((await t.server.call('GET', `/api/chain/seal?slug=${t.slug}`)).status).toBe(404);
    const seal = await t.server.call('GET', `/api/chain/seal?slug=${t.slug}`, { key: t.owner.key });
    expect(seal.status).toBe(200);
    expect(seal.body.checkpoints.at(-1)).toMatchObject({ slug: t.slug, seq: 3 });

    const explore = await t.server.call('GET', `/api/chain/${t.slug}/explore`, { key: t.owner.key });
    const whole = await verifyFiles(t.dir, { 'seal.json': seal.body, 'chain.json': explore.body }, ['--genesis-tick', String(t.genesisTick)]);
    expect(whole.out).toMatch(/genesis verified, 1 checkpoints compared/);
    expect(whole.code).toBe(0);

    const jsonl = explore.body.rows
      .slice(0, 2)
      .map((r: unknown) => JSON.stringify(r))
      .join('\n');
    const cut = await verifyFiles(t.dir, { 'seal.json': seal.body, 'cut.jsonl': jsonl });
    expect(cut.code).toBe(1);
    expect(cut.out).toMatch(/rows are missing at the end/);
  });

  it('refuses a file that is neither a seal nor a chain', async () => {
    const { dir, cleanup } = await tempDir();
    cleanups.push(cleanup);
    const res = await verifyFiles(dir, { 'x.json': { hello: 1 } });
    expect(res.code).toBe(1);
    expect(res.out).toMatch(/INVALID/);
  });
});
