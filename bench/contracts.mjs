// Contracts benchmark (issue 5): 1,000 recurring contracts firing every tick on one machine, on the
// lowdb default (fsync on), for 60 s of wall time. Fire lag is the time from the start of a fire's due
// tick to the moment its transition row was built (`created_at`); a missed fire is a due tick in the
// window that no row covers, or one collapsed into a later fire (`skipped`). Contracts are created over
// HTTP, then the server runs untouched; the rows are read back from the log file after it stops.
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { percentile, startProcess, stop, tempDataDir } from './lib.mjs';

const TICK_MS = 777;

async function call(url, method, p, { key, body } = {}) {
  const headers = { 'content-type': 'application/json' };
  if (key) headers.authorization = `Bearer ${key}`;
  const res = await fetch(`${url}${p}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const json = await res.json();
  if (!res.ok) throw new Error(`${method} ${p}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

function rssMiB(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
}

export async function contractsFireLag({ contracts = 1000, seconds = 60 } = {}) {
  const dataDir = tempDataDir();
  const { child, match } = await startProcess(['dist/src/cli.js', 'serve'], { PORT: '0', CORE_DATA_DIR: dataDir, LOG_LEVEL: 'info' }, /"url":"(http:[^"]+)"/);
  const url = match[1];
  try {
    const { key } = await call(url, 'POST', '/api/demo-key/mint', { body: {} });
    const slug = 'bench-contracts';
    await call(url, 'POST', '/api/chain/state-machines', { key, body: { slug } });
    const definition = {
      name: 'every_tick',
      states: { on: { initial: true } },
      transitions: [{ from: 'on', to: 'on', operator: 'KO42', trigger: { kind: 'every', every_ticks: 1 } }],
    };
    const createStarted = performance.now();
    for (let i = 0; i < contracts; i += 20) {
      await Promise.all(
        Array.from({ length: Math.min(20, contracts - i) }, () => call(url, 'POST', `/api/chain/${slug}/contracts`, { key, body: { definition } })),
      );
    }
    const createMs = performance.now() - createStarted;
    // The window opens at the next tick after every contract exists and closes `seconds` later.
    const firstTick = Math.floor(Date.now() / TICK_MS) + 2;
    const lastTick = firstTick + Math.floor((seconds * 1000) / TICK_MS) - 1;
    const rss = [];
    while (Date.now() < (lastTick + 3) * TICK_MS) {
      await new Promise((r) => setTimeout(r, 5000));
      rss.push(rssMiB(child.pid));
    }
    await stop(child);

    const rows = readLog(dataDir, `contracts/${slug}/transitions`);
    const inWindow = rows.filter((r) => r.due_tick >= firstTick && r.due_tick <= lastTick);
    const lags = inWindow.map((r) => Date.parse(r.created_at) - r.due_tick * TICK_MS);
    // The audit row is the last durable step of a fire: its created_at is stamped under the chain's lock.
    const dueOf = new Map(inWindow.map((r) => [r.id, r.due_tick]));
    const auditLags = readLog(dataDir, `chain/${slug}`)
      .filter((r) => r.type === 'contract.transition' && dueOf.has(r.transition_id))
      .map((r) => Date.parse(r.created_at) - dueOf.get(r.transition_id) * TICK_MS);
    const tickLags = inWindow.map((r) => r.tick_number - r.due_tick);
    const expected = contracts * (lastTick - firstTick + 1);
    const covered = new Set(inWindow.map((r) => `${r.contract_id}:${r.due_tick}`)).size;
    const skipped = inWindow.reduce((n, r) => n + r.skipped, 0);
    const failed = inWindow.filter((r) => !r.success).length;
    return {
      contracts,
      window_s: seconds,
      window_ticks: lastTick - firstTick + 1,
      create_contracts_s: +(createMs / 1000).toFixed(1),
      fires_expected: expected,
      fires_made: inWindow.length,
      missed_fires: expected - covered + skipped,
      failed_fires: failed,
      fire_lag_ms: {
        p50: Math.round(percentile(lags, 50)),
        p90: Math.round(percentile(lags, 90)),
        p99: Math.round(percentile(lags, 99)),
        max: Math.round(Math.max(...lags)),
      },
      audit_row_lag_ms: {
        p50: Math.round(percentile(auditLags, 50)),
        p99: Math.round(percentile(auditLags, 99)),
        max: Math.round(Math.max(...auditLags)),
      },
      fired_in_due_tick: +(tickLags.filter((d) => d === 0).length / Math.max(1, tickLags.length)).toFixed(4),
      rss_mib: { min: Math.min(...rss), max: Math.max(...rss) },
    };
  } finally {
    if (child.exitCode === null) await stop(child);
    // A 60 s run leaves about 200 MB of logs behind.
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Rows of a log stream, read from its JSON-lines file (file names encoded as the lowdb adapter does). */
function readLog(dataDir, stream) {
  const encoded = encodeURIComponent(stream).replace(/%[0-9A-F]{2}|[A-Z.!~*'()]/g, (m) =>
    m.length === 3 ? m : `%${m.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return readFileSync(path.join(dataDir, 'logs', `${encoded}.jsonl`), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}
