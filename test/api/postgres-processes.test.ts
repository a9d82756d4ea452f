import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, onTestFinished } from 'vitest';
import { genesisSeed, verifyChain, type ChainRow } from '../../src/domain/chain/hash-chain.js';
import { createChainLogRepository } from '../../src/domain/chain/chain-log-repository.js';
import { createMachineRepository } from '../../src/domain/chain/machine-repository.js';
import { createContractRepository } from '../../src/domain/contracts/contract-repository.js';
import type { TransitionRecord } from '../../src/domain/contracts/contract.types.js';
import { tickOf, tickStartMs } from '../../src/lib/clock.js';
import { createPostgresStore } from '../../src/storage/postgres/postgres.store.js';
import { tempDir } from '../helpers/server.js';
import { eventually } from '../helpers/pg-wait.js';
import { openSse } from '../helpers/sse.js';
import { databaseUrl, dropSchema, SKIP_REASON, uniqueSchema } from '../store/postgres-harness.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Proc {
  child: ChildProcess;
  url: string;
  logs: () => string;
  exited: Promise<number | null>;
}

/** `node dist/src/cli.js serve` on the shared schema; resolves once it logs its listening URL. */
function serve(dataDir: string, schema: string): Promise<Proc> {
  const child = spawn(process.execPath, ['dist/src/cli.js', 'serve'], {
    cwd: root,
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      CORE_DATA_DIR: dataDir,
      CORE_RATE_LIMIT: 'off',
      DATABASE_URL: databaseUrl!,
      DATABASE_SCHEMA: schema,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stdout!.resume();
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    child.stderr!.on('data', (chunk) => {
      err += chunk;
      const m = /"url":"(http:[^"]+)"/.exec(err);
      if (m) resolve({ child, url: m[1]!, logs: () => err, exited });
    });
    void exited.then((code) => reject(new Error(`server exited ${code} before listening: ${err}`)));
  });
}

async function call(url: string, method: string, path: string, key?: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/** Opens an SSE stream and collects its events until the test ends. */
async function subscribe(url: string, key: string) {
  const sse = await openSse(url, { authorization: `Bearer ${key}` });
  expect(sse.res.status).toBe(200);
  return sse.events;
}

const pulse = (name: string, every: number) => ({
  name,
  states: { running: { initial: true } },
  transitions: [{ from: 'running', to: 'running', operator: 'KO42', trigger: { kind: 'every', every_ticks: every } }],
});

/** Every due tick a row stands for: its own and the `skipped` ones it collapsed, one period apart. */
function dueTicksOf(rows: TransitionRecord[], every: number): number[] {
  return rows.flatMap((r) => Array.from({ length: r.skipped + 1 }, (_, i) => r.due_tick! - (r.skipped - i) * every));
}

const skipReason =
  databaseUrl === undefined
    ? SKIP_REASON
    : existsSync(`${root}/dist/src/cli.js`)
      ? undefined
      : 'PostgreSQL process tests skipped: run `npm run build` first (they spawn dist/src/cli.js)';
if (skipReason !== undefined) console.warn(skipReason);

describe.skipIf(skipReason !== undefined)('two server processes on one PostgreSQL database', () => {
  it('fires every due tick once across a kill -9 and a restart, keeps chains linear and streams across processes', async () => {
    const schema = uniqueSchema('procs');
    const dirs = await Promise.all([tempDir('core-pa-'), tempDir('core-pb-')]);
    const procs: Proc[] = [];
    onTestFinished(async () => {
      for (const p of procs) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
      await Promise.all(procs.map((p) => p.exited));
      await dropSchema(schema);
      await Promise.all(dirs.map((d) => d.cleanup()));
    });
    const start = async (which: 0 | 1) => {
      const p = await serve(dirs[which].dir, schema);
      procs.push(p);
      return p;
    };
    // Started together: the migrations run once, under their advisory lock.
    const [a, b] = await Promise.all([start(0), start(1)]);

    const { key } = (await call(a.url, 'POST', '/api/demo-key/mint', undefined, {})).body as { key: string };
    const slug = `procs-${Date.now().toString(36)}`;
    expect((await call(a.url, 'POST', '/api/chain/state-machines', key, { slug })).status).toBe(200);

    // Contracts created through both processes; each process schedules all of them.
    const contracts: Array<{ id: string; every: number }> = [];
    for (let i = 0; i < 8; i++) {
      const every = i % 2 === 0 ? 1 : 2;
      const res = await call((i % 2 === 0 ? a : b).url, 'POST', `/api/chain/${slug}/contracts`, key, { definition: pulse(`p${i}`, every) });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      contracts.push({ id: res.body.contract.id as string, every });
    }

    // An observer on the shared schema: the test waits on what the processes wrote, never on the clock.
    const observer = createPostgresStore({ connectionString: databaseUrl!, schema });
    await observer.open();
    onTestFinished(() => observer.close());
    /** Resolves once every contract's fires cover a due tick at or after `tick` (`every` for each: their own period). */
    const firedThrough = (tick: (every: number) => number) =>
      eventually(async () => {
        const rows = await createContractRepository(observer).machineTransitions(slug);
        for (const { id, every } of contracts) {
          const due = dueTicksOf(
            rows.filter((r) => r.contract_id === id),
            every,
          );
          expect(due.at(-1) ?? -Infinity, `contract ${id} has not fired through tick ${tick(every)}`).toBeGreaterThanOrEqual(tick(every));
        }
      }, 100);

    // A row appended through A reaches an SSE subscriber on B (the subscription catches a missed
    // announcement up from the log at the next row it hears of; both processes append every tick).
    const events = await subscribe(`${b.url}/api/chain/${slug}/explore/sse`, key);
    const appendedOnB = (type: string) =>
      eventually(() => expect(events.filter((e) => e.event === 'audit.appended').map((e) => JSON.parse(e.data).type)).toContain(type));
    expect((await call(a.url, 'POST', `/api/chain/${slug}/event`, key, { type: 'from-a', payload: { n: 1 } })).status).toBe(200);
    await appendedOnB('from-a');

    // Both processes fire for a while: every contract twice after the first tick seen now.
    const running = tickOf(Date.now());
    await firedThrough((every) => running + 2 * every);
    // kill -9 A just after a tick starts, while it fires that tick's due contracts (where the kill
    // lands changes what is exercised, not what must hold).
    await sleep(Math.max(0, tickStartMs(tickOf(Date.now()) + 1) - Date.now() + 15));
    a.child.kill('SIGKILL');
    await a.exited;
    // B alone takes over A's share (the claims A held died with its session): every contract fires
    // two of its periods past the kill.
    const killed = tickOf(Date.now());
    await firedThrough((every) => killed + 2 * every);
    const a2 = await start(0);
    const restarted = tickOf(Date.now());
    await firedThrough((every) => restarted + 2 * every);
    // A row appended through the restarted A still reaches the stream on B.
    expect((await call(a2.url, 'POST', `/api/chain/${slug}/event`, key, { type: 'from-a2', payload: { n: 2 } })).status).toBe(200);
    await appendedOnB('from-a2');

    const validate = await call(b.url, 'GET', `/api/chain/${slug}/pohc/validate`, key);
    expect(validate.status).toBe(200);
    expect(validate.body).toMatchObject({ valid: true, broken_seq: null });

    // None lost up to the stop: every contract's last due tick at or before `stopTick` has fired.
    const stopTick = tickOf(Date.now());
    await firedThrough((every) => stopTick - every + 1);
    for (const p of [a2, b]) p.child.kill('SIGTERM');
    expect(await a2.exited).toBe(0);
    expect(await b.exited).toBe(0);

    const machine = (await createMachineRepository(observer).get(slug))!;
    const chain = await createChainLogRepository(observer).read(slug);
    expect(chain.map((r) => r.seq)).toEqual(chain.map((_, i) => i));
    expect(verifyChain(chain, genesisSeed(machine.slug, machine.genesis_tick))).toMatchObject({ valid: true, broken_seq: null });

    const rows = await createContractRepository(observer).machineTransitions(slug);
    for (const { id, every } of contracts) {
      const mine = rows.filter((r) => r.contract_id === id);
      // Linear per contract: numbered without gaps and hash-linked (no fork from two processes firing).
      expect(mine.map((r) => r.n)).toEqual(mine.map((_, i) => i + 1));
      for (let i = 1; i < mine.length; i++) expect(mine[i]!.prev_hash).toBe(mine[i - 1]!.state_hash);
      // Exactly once: no due tick fired twice, and none lost: the due ticks covered are consecutive
      // periods from the first to the last, up to shortly before the processes stopped.
      const due = dueTicksOf(mine, every);
      expect(new Set(due).size, `contract ${id} fired a due tick twice`).toBe(due.length);
      expect(due, `contract ${id} lost a due tick`).toEqual(due.map((_, i) => due[0]! + i * every));
      expect(due.at(-1)!).toBeGreaterThanOrEqual(stopTick - every + 1);
      expect(mine.every((r) => r.triggered_by === 'trigger' && r.success)).toBe(true);
    }
    // Every fire's audit row is on the chain once (a fire cut by the kill leaves its row, or neither).
    const audited = chain.filter((r) => r.type === 'contract.transition').map((r) => (r as ChainRow & { transition_id: string }).transition_id);
    expect(new Set(audited).size).toBe(audited.length);
    expect(audited.length).toBeGreaterThanOrEqual(rows.length - contracts.length);
  });
});
