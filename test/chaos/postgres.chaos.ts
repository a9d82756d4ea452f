import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tickOf } from '../../src/lib/clock.js';
import { countChains, countFires, countStream } from './checks.js';
import { createChaosCluster, freePort, type ChaosCluster } from './cluster.js';
import { call, freshDigest, mcpCall, startAppenders, startMcpProbes, startProbes, subscribe, Tally, type McpAnswer, type Subscriber } from './load.js';
import { startServe, type ServeProcess } from './processes.js';
import { summary } from './summary.js';
import { HANG_MS, justAfterNextTick, observe, pause, pulse, quotaIdentity, waitUntil } from './world.js';

const PROCESSES = 3;
const MACHINES = 3;
const CONTRACTS_PER_MACHINE = 20;
/** The `machines` quota: the load identity owns `MACHINES` of it, each fault's quota identity tries to exceed it. */
const QUOTA = 5;
const SESSION = 'core-server session';
const POOL = 'core-server';

describe('chaos: three serve processes on one PostgreSQL schema of their own cluster', () => {
  let cluster: ChaosCluster;
  const schema = `chaos_${randomBytes(4).toString('hex')}`;
  const procs: ServeProcess[] = [];
  const urls = () => procs.map((p) => p.url);
  const tally = new Tally();
  let key: string;
  const slugs: string[] = [];
  const contracts: Array<{ id: string; every: number }> = [];
  let appenders: ReturnType<typeof startAppenders>;
  let probes: ReturnType<typeof startProbes>;
  let mcp: ReturnType<typeof startMcpProbes>;
  const subscribers: Array<{ process: number; sub: Subscriber }> = [];
  /** Totals at the previous check: each fault is charged only with what appeared since. */
  const before = { duplicates: 0, forks: 0, missing: 0 };

  beforeAll(async () => {
    cluster = await createChaosCluster();
    const env = (i: number) => ({
      DATABASE_URL: cluster.url,
      DATABASE_SCHEMA: schema,
      CORE_DATA_DIR: path.join(cluster.dir, 'serve', `p${i}`),
      CORE_RATE_LIMIT: 'off',
      CORE_QUOTAS: `machines=${QUOTA},contracts_per_machine=${CONTRACTS_PER_MACHINE},demo_keys_per_address=off`,
    });
    const ports = await Promise.all(Array.from({ length: PROCESSES }, freePort));
    // The first one migrates the schema alone; the others start together after it.
    const crashed = (name: string) => summary.extra.push(`${name} exited by itself (restarted)`);
    procs.push(await startServe('p0', ports[0]!, env(0), crashed));
    procs.push(...(await Promise.all(ports.slice(1).map((port, i) => startServe(`p${i + 1}`, port, env(i + 1), crashed)))));

    const minted = await call(tally, urls()[0]!, 'POST', '/api/demo-key/mint', undefined, {});
    expect(minted.status).toBe(200);
    key = minted.body.key as string;
    for (let m = 0; m < MACHINES; m++) {
      const slug = `chaos-${schema.slice(-8)}-${m}`;
      const res = await call(tally, urls()[m % PROCESSES]!, 'POST', '/api/chain/state-machines', key, { slug });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      slugs.push(slug);
    }
    for (let i = 0; i < MACHINES * CONTRACTS_PER_MACHINE; i++) {
      const every = i % 2 === 0 ? 1 : 2;
      const slug = slugs[i % MACHINES]!;
      const res = await call(tally, urls()[i % PROCESSES]!, 'POST', `/api/chain/${slug}/contracts`, key, { definition: pulse(`pulse-${i}`, every) });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      contracts.push({ id: res.body.contract.id as string, every });
    }
    for (let p = 0; p < PROCESSES; p++) {
      for (const slug of slugs) subscribers.push({ process: p, sub: subscribe(() => urls()[p]!, slug, key) });
    }
    await Promise.all(subscribers.map((s) => s.sub.opened));
    appenders = startAppenders({ tally, urls, slugs, key, gapMs: 40 });
    probes = startProbes(urls);
    mcp = startMcpProbes(urls, key, slugs[0]!);
  }, 300_000);

  afterAll(async () => {
    await appenders?.stop();
    await probes?.stop();
    await mcp?.stop();
    await Promise.all(subscribers.map((s) => s.sub.close()));
    await Promise.all(procs.map((p) => p.stop()));
    for (const p of procs) for (const c of p.crashes.slice(0, 1)) summary.extra.push(`${p.name} crash (${c.code ?? c.signal}):\n${c.tail.slice(-1500)}`);
    // CHAOS_LOG_DIR keeps every process's log (for finding out why a check failed).
    const logDir = process.env.CHAOS_LOG_DIR;
    if (logDir) {
      await mkdir(logDir, { recursive: true });
      for (const p of procs) await writeFile(path.join(logDir, `${p.name}.log`), p.logs());
      await writeFile(path.join(logDir, 'postgres.log'), await cluster.serverLog());
    }
    await cluster?.destroy();
    summary.requests = tally.total;
    summary.statuses = tally.summary();
    summary.print();
  }, 300_000);

  /**
   * Injects `fault` while load runs, waits for the system to settle (every process answers writes again,
   * fires resume, streams catch up: each wait ends on the event, its limit only catches a hang), then
   * counts what every promise of fault tolerance says must be zero (forks, duplicate fires, lost writes).
   */
  async function faultAndCheck(name: string, fault: (window: Tally) => Promise<void>, opts: { outage: boolean; readinessDrop: boolean }) {
    const window = tally.window();
    const crashesBefore = procs.reduce((n, p) => n + p.crashes.length, 0);
    const quota = await quotaIdentity(tally, urls);
    probes.setPhase(name);
    mcp.setPhase(name);
    await fault(window);
    probes.setPhase(`${name}/after`);
    mcp.setPhase(`${name}/after`);
    summary.faults.push(name);

    // Settled: every process acknowledges a write again.
    const answering = await waitUntil(async () => {
      const answers = await Promise.all(
        urls().map((u) => call(window, u, 'POST', `/api/chain/${slugs[0]}/event`, key, { type: 'chaos-probe', hash: freshDigest() })),
      );
      return answers.every((a) => a.status === 200);
    });
    expect.soft(answering, `${name}: every process acknowledges writes again`).toBe(true);

    // Readiness: 503 on at least one probe of each process during the outage, 200 again after it.
    if (opts.readinessDrop) {
      for (let p = 0; p < PROCESSES; p++) {
        const during = probes.statuses(name, p);
        expect.soft(during.filter((s) => s === 503).length, `${name}: p${p} readiness during the outage (answers ${[...new Set(during)]})`).toBeGreaterThan(0);
      }
    }
    const ready = await waitUntil(async () => {
      const answers = await Promise.all(urls().map((u) => call(undefined, u, 'GET', '/api/health/ready')));
      // A missing operation (404) or any other client error will not turn into 200 by waiting.
      if (answers.some((a) => a.status >= 400 && a.status < 500)) return true;
      return answers.every((a) => a.status === 200);
    });
    const readyNow = await Promise.all(urls().map((u) => call(undefined, u, 'GET', '/api/health/ready')));
    expect.soft(ready && readyNow.map((a) => a.status), `${name}: readiness after the outage`).toEqual(readyNow.map(() => 200));

    // MCP works again after the fault: a tools/call that reads the store is served by every process.
    const mcpBack = await waitUntil(async () =>
      (await Promise.all(urls().map((u) => mcpCall(u, key, 'core_machines', { action: 'get', slug: slugs[0] })))).every((a) => a.kind === 'ok'),
    );
    expect.soft(mcpBack, `${name}: every process serves MCP tools/call again`).toBe(true);

    // Fires resume: every contract fires two of its periods past the tick the system settled in.
    const settled = tickOf(Date.now());
    const firing = await waitUntil(
      async () => {
        const count = await observe(cluster.url, schema, (store) => countFires(store, slugs, contracts));
        return contracts.every(({ id, every }) => (count.lastDue.get(id) ?? -Infinity) >= settled + 2 * every);
      },
      HANG_MS,
      500,
    );
    expect.soft(firing, `${name}: every contract fires again after the fault`).toBe(true);

    await quota.finish(QUOTA + 3);
    const { fires, chains, owned } = await observe(cluster.url, schema, async (store) => ({
      fires: await countFires(store, slugs, contracts),
      chains: await countChains(store, appenders.acked),
      owned: await quota.owned(store),
    }));
    const fresh = { duplicates: fires.duplicates - before.duplicates, forks: fires.forks - before.forks, missing: fires.missing - before.missing };
    Object.assign(before, { duplicates: fires.duplicates, forks: fires.forks, missing: fires.missing });
    summary.fires = fires.fires;
    summary.duplicates = fires.duplicates;
    summary.missing = fires.missing;
    expect.soft(fresh.duplicates, `${name}: duplicate (contract, due_tick) fires (${fires.duplicates} in all)`).toBe(0);
    expect.soft(fresh.forks, `${name}: transition rows that fork a contract's chain (${fires.forks} in all)`).toBe(0);
    expect.soft(fresh.missing, `${name}: due ticks missed between a contract's first and last fire (${fires.missing} in all)`).toBe(0);
    expect
      .soft(
        chains.lostAcked,
        `${name}: acknowledged appends missing from the chain (${chains.lostExamples.map((e) => `${e} acknowledged by ${appenders.receipts.get(e.split(':')[1]!)}`).join('; ')})`,
      )
      .toBe(0);
    // Appends acknowledged while the chain was read may have committed after the read: read them again.
    const late = await observe(cluster.url, schema, (store) => countChains(store, digestsOf(chains.ackedDuringRead)));
    expect.soft(late.lostAcked, `${name}: appends acknowledged during the check's read, missing when read again`).toBe(0);
    expect.soft(chains.doubled, `${name}: appends stored twice`).toBe(0);
    expect.soft(chains.invalid, `${name}: chains that do not verify`).toEqual([]);
    for (const slug of slugs) {
      const validate = await call(window, urls()[0]!, 'GET', `/api/chain/${slug}/pohc/validate`, key);
      expect.soft(validate.body, `${name}: pohc/validate of ${slug}`).toMatchObject({ valid: true, broken_seq: null });
    }
    expect.soft(owned, `${name}: machines the quota identity owns (quota ${QUOTA})`).toBe(QUOTA);
    expect.soft(quota.admitted(), `${name}: quota'd creates acknowledged (quota ${QUOTA})`).toBeLessThanOrEqual(QUOTA);

    // Streams: every subscriber gets every row up to the heads read above, once, in the end.
    const reached = await waitUntil(() => subscribers.every(({ sub }) => countStream(sub.seqs, chains.heads.get(sub.slug)!).reached), HANG_MS);
    let gaps = 0;
    let repeats = 0;
    for (const { process, sub } of subscribers) {
      const c = countStream(sub.seqs, chains.heads.get(sub.slug)!);
      gaps += c.gaps;
      repeats += c.duplicates;
      expect.soft(c.gaps, `${name}: rows of ${sub.slug} up to seq ${chains.heads.get(sub.slug)} the subscriber on p${process} never got`).toBe(0);
      expect.soft(c.duplicates, `${name}: rows the subscriber on p${process} got twice`).toBe(0);
    }
    summary.streamGaps += gaps;
    expect.soft(reached, `${name}: every subscriber reached its machine's head`).toBe(true);

    window.close();
    // MCP during and after the fault: served, or refused as unavailable (a JSON-RPC error or an isError
    // result saying UNAVAILABLE); never anything else (a 500, INTERNAL) and never a hang.
    const mcpAnswers = mcp.of(name);
    const mcpKinds = (kind: McpAnswer) => mcpAnswers.filter((a) => a.kind === kind);
    const mcpOther = mcpKinds('other');
    expect
      .soft(
        mcpOther.length,
        `${name}: MCP tools/call answers neither served nor unavailable (${mcpOther
          .slice(0, 3)
          .map((a) => `p${a.process}: ${a.detail}`)
          .join(' | ')})`,
      )
      .toBe(0);
    expect.soft(mcpKinds('hang').length, `${name}: MCP tools/call left unanswered (hang limit)`).toBe(0);
    if (opts.outage) expect.soft(mcpKinds('unavailable').length, `${name}: MCP tools/call refused as unavailable during the outage`).toBeGreaterThan(0);
    const crashes = procs.reduce((n, p) => n + p.crashes.length, 0) - crashesBefore;
    // Every pooled client has an 'error' listener from its first moment (src/storage/postgres/pg-pool.ts):
    // a terminated backend of any kind never takes a process down.
    expect.soft(crashes, `${name}: serve processes that exited by themselves`).toBe(0);
    summary.record(name, window, {
      duplicates: fresh.duplicates,
      forks: fresh.forks,
      missing: fresh.missing,
      lost: chains.lostAcked,
      'acked during the read': chains.ackedDuringRead.length,
      gaps,
      repeats,
      owned,
      crashes,
      'mcp ok': mcpKinds('ok').length,
      'mcp unavailable': mcpKinds('unavailable').length,
      'mcp other': mcpOther.length,
      'mcp hang': mcpKinds('hang').length,
    });
    expect.soft(window.count(500), `${name}: 500 answers (${window.summary()})`).toBe(0);
    if (opts.outage) expect.soft(window.count(503), `${name}: 503 answers during the outage (${window.summary()})`).toBeGreaterThan(0);
  }

  /** `slug:digest` strings as the per-machine sets `countChains` takes. */
  function digestsOf(pairs: string[]): Map<string, Set<string>> {
    const out = new Map<string, Set<string>>();
    for (const pair of pairs) {
      const [slug, digest] = pair.split(':') as [string, string];
      if (!out.has(slug)) out.set(slug, new Set());
      out.get(slug)!.add(digest);
    }
    return out;
  }

  /** Holds an outage until every process answered probes and load in it (at least `minMs`, so it is "a few seconds"). */
  async function holdOutage(name: string, window: Tally, minMs: number) {
    const from = window.total;
    await pause(minMs);
    await waitUntil(() => window.total - from >= 30 && probes.answers.filter((a) => a.phase === name).length >= PROCESSES * 3);
  }

  it('baseline: under load with no fault every check holds', async () => {
    await faultAndCheck('baseline', async () => void (await pause(3000)), { outage: false, readinessDrop: false });
  });

  it('terminating the session backends while claims are held loses and doubles nothing', async () => {
    await faultAndCheck(
      'terminate session backends',
      async () => {
        for (let round = 0; round < 8; round++) {
          await justAfterNextTick(20);
          summary.terminated += await cluster.terminate([SESSION]);
          await justAfterNextTick(300);
        }
      },
      { outage: false, readinessDrop: false },
    );
  });

  it('terminating session and pooled backends mid-fire loses and doubles nothing', async () => {
    await faultAndCheck(
      'terminate session and pooled backends',
      async () => {
        for (let round = 0; round < 3; round++) {
          await justAfterNextTick(20);
          summary.terminated += await cluster.terminate([SESSION, POOL]);
          await justAfterNextTick(300);
        }
      },
      { outage: false, readinessDrop: false },
    );
  });

  it('refusing connections for a few seconds answers 503, reports unready, and recovers', async () => {
    await faultAndCheck(
      'refuse connections',
      async (window) => {
        await justAfterNextTick(20);
        summary.terminated += await cluster.refuse();
        await holdOutage('refuse connections', window, 3000);
        await cluster.allow();
      },
      { outage: true, readinessDrop: true },
    );
  });

  it('restarting PostgreSQL answers 503, reports unready, and recovers', async () => {
    await faultAndCheck(
      'restart postgres',
      async (window) => {
        await justAfterNextTick(20);
        await cluster.stop();
        await holdOutage('restart postgres', window, 2000);
        await cluster.start();
      },
      { outage: true, readinessDrop: true },
    );
  });

  it('kill -9 of one process: the others take over, it restarts, streams resume', async () => {
    await faultAndCheck(
      'kill -9 p0',
      async () => {
        await justAfterNextTick(20);
        await procs[0]!.kill9();
        await justAfterNextTick(300);
        await justAfterNextTick(300);
        await procs[0]!.restart();
      },
      { outage: false, readinessDrop: false },
    );
  });
});
