import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { verifyChainExport } from '../../src/domain/chain/offline-verify.js';
import { createChainLogRepository } from '../../src/domain/chain/chain-log-repository.js';
import { createMachineRepository } from '../../src/domain/chain/machine-repository.js';
import { createContractRepository } from '../../src/domain/contracts/contract-repository.js';
import { createPlanRepository } from '../../src/domain/agents/plan-repository.js';
import { createTallyRepository } from '../../src/domain/economy/tally-repository.js';
import { envelopeId } from '../../src/domain/economy/tally-token.js';
import type { Store } from '../../src/storage/port.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** A small seeded generator (mulberry32): the kill moments of a run follow from its seed. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface Served {
  child: ChildProcess;
  url: string;
  stderr: () => string;
}

/** Starts `node dist/src/cli.js serve` on an ephemeral port and resolves once it listens; `nodeArgs` go to node (e.g. `--cpu-prof`). */
export function serve(env: Record<string, string>, nodeArgs: readonly string[] = []): Promise<Served> {
  const child = spawn(process.execPath, [...nodeArgs, 'dist/src/cli.js', 'serve'], {
    cwd: root,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', CORE_RATE_LIMIT: 'off', CORE_QUOTAS: 'off', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  // A test that times out must not leave its server running.
  const orphanGuard = () => child.kill('SIGKILL');
  process.once('exit', orphanGuard);
  child.once('exit', () => process.off('exit', orphanGuard));
  let err = '';
  let url: string | undefined;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not listen within 120 s (it must log "listening" at LOG_LEVEL info): ${err.slice(-2000)}`));
    }, 120_000);
    child.stderr!.on('data', (chunk: Buffer) => {
      err += chunk.toString();
      if (err.length > 200_000) err = err.slice(-100_000);
      const m = url === undefined ? /"msg":"listening","url":"(http:[^"]+)"/.exec(err) : null;
      if (m) {
        url = m[1]!;
        clearTimeout(timer);
        resolve({ child, url, stderr: () => err });
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`server exited (${code ?? signal}) before listening: ${err.slice(-2000)}`));
    });
  });
}

/**
 * Waits (polling the server's log, never a fixed sleep) until the restarted server's audit recovery has
 * finished its start pass: from then on every fire and envelope written before the restart has its chain row.
 */
export async function recovered(served: Served, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!/"msg":"audit recovery done"/.test(served.stderr())) {
    if (/"msg":"audit recovery failed"/.test(served.stderr())) throw new Error(`audit recovery failed: ${served.stderr().slice(-2000)}`);
    if (Date.now() > deadline) throw new Error(`the audit recovery did not finish within ${timeoutMs} ms of the restart`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** SIGKILL, and wait until the process is reaped (its data directory lock then names a dead pid). */
export async function kill9(served: Served): Promise<void> {
  if (served.child.exitCode !== null || served.child.signalCode !== null) return;
  const exited = new Promise((resolve) => served.child.once('exit', resolve));
  served.child.kill('SIGKILL');
  await exited;
}

export async function stopGracefully(served: Served): Promise<void> {
  if (served.child.exitCode !== null || served.child.signalCode !== null) return;
  const exited = new Promise((resolve) => served.child.once('exit', resolve));
  served.child.kill('SIGTERM');
  await exited;
}

async function call(url: string, method: string, path: string, key: string | undefined, body?: unknown): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = {};
  if (key) headers.authorization = `Bearer ${key}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${url}${path}`, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

async function ok(url: string, method: string, path: string, key: string | undefined, body?: unknown): Promise<any> {
  const res = await call(url, method, path, key, body);
  if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

const SLUG = 'crash-load';

/** What clients were told was written: each must be found after every restart. */
export interface Acked {
  events: Array<{ seq: number; state_hash: string }>;
  plans: Array<{ version: number; plan_id: string; audit_row_id: string }>;
  envelopes: Array<{ token_id: string; value: number }>;
}

export interface Fixture {
  key: string;
  uid: string;
  machineKey: string;
  contractId: string;
}

/** The machine under load: a token minting an envelope per fire and compute, and a contract firing every tick. */
export async function createFixture(url: string): Promise<Fixture> {
  const { key, uid } = await ok(url, 'POST', '/api/demo-key/mint', undefined, {});
  const spun = await ok(url, 'POST', '/api/chain/state-machines', key, { slug: SLUG });
  await ok(url, 'POST', `/api/chain/${SLUG}/tally/token/genesis`, key, {
    name: 'Crash',
    symbol: 'CRASH',
    max_supply: 1_000_000_000,
    mint_rate_per_tick: 1_000_000,
  });
  const definition = {
    name: 'pulse',
    states: { running: { initial: true } },
    transitions: [{ from: 'running', to: 'running', operator: 'KO42', trigger: { kind: 'every', every_ticks: 1 } }],
  };
  const contract = await ok(url, 'POST', `/api/chain/${SLUG}/contracts`, key, { definition });
  return { key, uid, machineKey: spun.api_key as string, contractId: contract.contract.id as string };
}

/**
 * Write load until `signal` aborts: four event writers, a plan locker and a computing client (each
 * compute mints an envelope), besides the contract the scheduler fires each tick. Only 2xx answers
 * count as acknowledged; a request cut by the kill is not.
 */
export async function load(url: string, fx: Fixture, acked: Acked, life: number, signal: AbortSignal): Promise<number> {
  let requests = 0;
  const loop = async (step: (i: number) => Promise<void>) => {
    for (let i = 0; !signal.aborted; i++) {
      try {
        await step(i);
        requests++;
      } catch (e) {
        if (process.env.CRASH_DEBUG && (e as Error).message !== 'fetch failed') console.error(e);
        return; // the server is gone
      }
    }
  };
  const writer = (w: number) =>
    loop(async (i) => {
      const res = await call(url, 'POST', `/api/chain/${SLUG}/event`, fx.key, { type: 'load', payload: { life, w, i } });
      if (res.status === 200) acked.events.push({ seq: res.body.seq, state_hash: res.body.state_hash });
    });
  const locker = loop(async (i) => {
    const plan = { title: `life ${life} lock ${i}`, goal: 'survive kill -9', steps: [{ action: 'append' }] };
    const res = await call(url, 'POST', `/api/agent/${fx.uid}/plans/lock`, fx.key, { slug: SLUG, plan });
    if (res.status === 200) acked.plans.push({ version: res.body.plan.version, plan_id: res.body.plan.plan_id, audit_row_id: res.body.audit_row_id });
  });
  const computer = loop(async () => {
    const res = await call(url, 'POST', '/api/compute', fx.machineKey, { operators: ['NM19'], inputs: { m: 2, a: 3 } });
    if (res.status === 200 && res.body.envelope) acked.envelopes.push({ token_id: res.body.envelope.token_id, value: res.body.envelope.value });
  });
  await Promise.all([writer(0), writer(1), writer(2), writer(3), locker, computer]);
  return requests;
}

export interface Verified {
  chainRows: number;
  fires: number;
  envelopes: number;
  plans: number;
  /**
   * Audit rows a kill cut off after their commit point: a fire's `contract.transition` row and an
   * envelope's `tally.minted` row are appended after the transition or envelope row. Allowed only for
   * rows written in the life just killed: the restart's audit recovery must append them (a failure
   * otherwise, see `mustBeAudited`), and none may be left after a graceful stop.
   */
  firesWithoutAuditRow: number;
  envelopesWithoutAuditRow: number;
  /** Successful fires whose envelope a kill cut off (the same rule: minted by the restart's recovery). */
  firesWithoutEnvelope: number;
  /** Envelopes the audit recovery minted late for such fires. */
  recoveredEnvelopes: number;
  /** Chain rows the audit recovery appended late (`recovered: true`). */
  recoveredRows: number;
}

/** Ids of every successful fire and every envelope the store held at a check. */
export type Known = Set<string>;

function fail(message: string): never {
  throw new Error(message);
}

function unique(values: readonly unknown[], what: string): void {
  const seen = new Set<unknown>();
  for (const v of values) {
    if (seen.has(v)) fail(`${what} ${JSON.stringify(v)} appears twice`);
    seen.add(v);
  }
}

/** Checks everything the crash test promises, reading the store directly (the server is down or another process). */
export async function verifyStore(
  store: Store,
  fx: Fixture,
  acked: Acked,
  /** Fires and envelopes (ids) that must have their audit row by now, or 'all' (after a graceful stop). */
  mustBeAudited: ReadonlySet<string> | 'all' = new Set(),
): Promise<Verified & { known: Known }> {
  const machine = (await createMachineRepository(store).get(SLUG)) ?? fail('the machine record is gone');
  const rows = await createChainLogRepository(store).read(SLUG);
  // The offline verifier (what `core-server verify` runs): consecutive seqs, hashes, links, genesis seed.
  const verdict = verifyChainExport(rows, { slug: SLUG, genesisTick: machine.genesis_tick });
  if (!verdict.valid || verdict.genesis !== 'verified') fail(`the chain does not verify: ${verdict.problems.join('; ')} (genesis ${verdict.genesis})`);
  for (const a of acked.events) {
    const row = rows[a.seq];
    if (row?.state_hash !== a.state_hash) fail(`acknowledged event seq ${a.seq} is ${row ? 'different' : 'missing'} after the restart`);
  }
  unique(
    acked.events.map((a) => a.seq),
    'acknowledged event seq',
  );
  // One audit row per lock, per fire and per envelope: a replay after a crash never writes one twice.
  for (const type of ['plan_locked', 'contract.transition', 'tally.minted']) {
    unique(
      rows.filter((r) => r.type === type).map((r) => r.transition_id),
      `${type} row for`,
    );
  }

  unique(
    acked.plans.map((p) => p.version),
    'acknowledged plan version',
  );
  const rowIds = new Set(rows.map((r) => r.id));
  for (const p of acked.plans) {
    const doc = (await createPlanRepository(store).version(fx.uid, SLUG, p.version)) ?? fail(`acknowledged plan version ${p.version} is missing`);
    if (doc.plan_id !== p.plan_id || doc.version !== p.version) fail(`plan version ${p.version} changed: ${JSON.stringify(doc)}`);
    if (!rowIds.has(p.audit_row_id)) fail(`the plan_locked row ${p.audit_row_id} of version ${p.version} is missing`);
  }
  const plans = (await createPlanRepository(store).rowsOf(fx.uid, SLUG)).filter((d) => d.status !== 'draft').map((d) => d.version);
  unique(plans, 'stored plan version');

  const token = (await createTallyRepository(store).token(SLUG)) ?? fail('the token record is gone');
  const envelopes = await createTallyRepository(store).envelopes(SLUG);
  unique(
    envelopes.map((e) => e.token_id),
    'envelope id',
  );
  let minted = 0;
  for (const [seq, e] of envelopes.entries()) {
    if (e.token_id !== envelopeId(token.handle, seq)) fail(`envelope at seq ${seq} has id ${e.token_id}`);
    minted += e.value;
    if (e.minted_total !== minted) fail(`envelope ${e.token_id}: minted_total ${e.minted_total}, expected ${minted}`);
  }
  const byId = new Map(envelopes.map((e) => [e.token_id, e]));
  unique(
    acked.envelopes.map((e) => e.token_id),
    'acknowledged envelope id',
  );
  for (const a of acked.envelopes) {
    const row = byId.get(a.token_id);
    if (row === undefined || row.value !== a.value || row.source !== 'compute') fail(`acknowledged envelope ${a.token_id} is missing or different`);
  }

  const fires = (await createContractRepository(store).machineTransitions(SLUG)).filter((r) => r.contract_id === fx.contractId);
  // One row per due tick, numbered without gaps, each linked to the one before: no tick fired twice.
  unique(
    fires.map((r) => r.due_tick),
    'fire for due tick',
  );
  for (const [i, r] of fires.entries()) {
    if (r.n !== i + 1) fail(`fire ${i} is numbered ${r.n}`);
    if (i > 0 && r.prev_hash !== fires[i - 1]!.state_hash) fail(`fire ${r.n} does not link to fire ${r.n - 1}`);
    if (i > 0 && !(r.due_tick! > fires[i - 1]!.due_tick!)) fail(`fire ${r.n} is for due tick ${r.due_tick}, not after ${fires[i - 1]!.due_tick}`);
  }
  const audited = new Set(rows.map((r) => r.transition_id));
  // A fire's envelope names the fire: one at most per fire, and (the fixture's supply never runs out, so
  // no mint is refused) one for each fire whose row says it mints one.
  const paid = envelopes.flatMap((e) => (e.transition_id !== undefined ? [e.transition_id] : []));
  unique(paid, 'envelope for fire');
  const paidSet = new Set(paid);
  const firesUnpaid = fires.filter((f) => f.success && f.envelope_for !== undefined && !paidSet.has(f.id)).map((f) => f.id);
  const firesMissing = fires.filter((f) => f.success && !audited.has(f.id)).map((f) => f.id);
  const envelopesMissing = envelopes.filter((e) => !audited.has(e.token_id)).map((e) => e.token_id);
  for (const id of [...firesMissing, ...envelopesMissing]) {
    if (mustBeAudited === 'all' || mustBeAudited.has(id)) {
      fail(
        `${firesMissing.includes(id) ? 'fire' : 'envelope'} ${id} still has no audit row ${mustBeAudited === 'all' ? 'after a graceful stop' : 'a life after the restart that should have recovered it'}`,
      );
    }
  }
  for (const id of firesUnpaid) {
    if (mustBeAudited === 'all' || mustBeAudited.has(id))
      fail(`fire ${id} still has no envelope ${mustBeAudited === 'all' ? 'after a graceful stop' : 'a life after the restart that should have minted it'}`);
  }
  return {
    chainRows: rows.length,
    fires: fires.length,
    envelopes: envelopes.length,
    plans: plans.length,
    firesWithoutAuditRow: firesMissing.length,
    envelopesWithoutAuditRow: envelopesMissing.length,
    firesWithoutEnvelope: firesUnpaid.length,
    recoveredEnvelopes: envelopes.filter((e) => e.recovered === true).length,
    recoveredRows: rows.filter((r) => r.recovered === true).length,
    known: new Set([...fires.filter((f) => f.success).map((f) => f.id), ...envelopes.map((e) => e.token_id)]),
  };
}

export { call, ok, SLUG };
