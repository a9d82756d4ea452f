// Solver benchmarks: each sealed solver on its own example, in-process through the solvers
// service (validation, run, receipt), median and p99; then HTTP throughput of one cheap solve.
import { createHmac } from 'node:crypto';
import { load, percentile, startProcess, stop, tempDataDir } from './lib.mjs';

/** The solvers service with a fixed receipt key, in-process (no store, no HTTP). */
export async function solversService() {
  const { createSolversService } = await import('../dist/src/domain/solvers/solvers.service.js');
  const { createReceiptsService } = await import('../dist/src/domain/receipts/receipts.service.js');
  const { createClock } = await import('../dist/src/lib/clock.js');
  const nodeKeys = { receiptKeyId: 'bench', hmac: (d) => createHmac('sha256', 'bench').update(d).digest('hex') };
  return createSolversService({ receipts: createReceiptsService({ nodeKeys, clock: createClock() }) });
}

/** Runs each solver's example until `runs` samples or `budgetMs` of solving, after two warm-up runs. */
export async function solverTimings({ runs = 200, budgetMs = 2000 } = {}) {
  const solvers = await solversService();
  const caller = { uid: null, credential: 'none' };
  const out = [];
  for (const { id } of solvers.list().solvers) {
    const { example } = solvers.get(id).solver;
    for (let i = 0; i < 2; i++) await solvers.solve(id, example, undefined, { caller });
    const times = [];
    const started = performance.now();
    while (times.length < runs && (times.length < 20 || performance.now() - started < budgetMs)) {
      const t = performance.now();
      await solvers.solve(id, example, undefined, { caller });
      times.push(performance.now() - t);
    }
    const round = (x) => Math.round(x * 1000) / 1000;
    out.push({ solver: id, runs: times.length, median_ms: round(percentile(times, 50)), p99_ms: round(percentile(times, 99)) });
  }
  return out;
}

/** `POST /api/solvers/root-brent/solve` on `core-server serve`, 50 connections, 10 s after a 2 s warm-up. */
export async function solveThroughput({ duration = 10, connections = 50 } = {}) {
  const { child, match } = await startProcess(
    ['dist/src/cli.js', 'serve'],
    { PORT: '0', CORE_DATA_DIR: tempDataDir(), LOG_LEVEL: 'info' },
    /"url":"(http:[^"]+)"/,
  );
  const url = `${match[1]}/api/solvers/root-brent/solve`;
  const request = { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ inputs: { f: 'x^3 - 2*x - 5', a: 2, b: 3 } }) };
  try {
    await load(url, { ...request, duration: 2, connections });
    return { solver: 'root-brent', connections, duration_s: duration, ...(await load(url, { ...request, duration, connections })) };
  } finally {
    await stop(child);
  }
}
