// PostgreSQL benchmarks, against real server processes (`node dist/src/cli.js serve`) sharing
// one database schema:
// - pgFireLag: scheduler fire lag and missed fires with many recurring contracts across two processes;
// - pgAppends: audited appends (`POST /api/chain/{slug}/event`) per second and p99 with one or two
//   processes loading one machine's chain at once.
//   DATABASE_URL=... node bench/postgres.mjs [contracts] [every_ticks] [seconds]
//   DATABASE_URL=... node bench/postgres.mjs appends [processes] [seconds]
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import pg from 'pg';
import { load, percentile, startProcess, stop, tempDataDir } from './lib.mjs';

const TICK_MS = 777;
const tickOf = (ms) => Math.floor(ms / TICK_MS);
const tickStartMs = (tick) => tick * TICK_MS;

async function call(url, method, p, key, body) {
  const res = await fetch(`${url}${p}`, {
    method,
    headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await res.json();
  if (!res.ok) throw new Error(`${method} ${p}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

async function withClient(url, fn) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** `count` server processes on a fresh schema; `close` stops them, drops the schema and the data dirs. */
async function cluster(url, count, env = {}) {
  const schema = `bench_${randomBytes(4).toString('hex')}`;
  const dirs = Array.from({ length: count }, () => tempDataDir());
  const servers = [];
  const close = async () => {
    await Promise.all(servers.map((s) => stop(s.child)));
    await withClient(url, (c) => c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)).catch(() => undefined);
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  };
  try {
    // Started together: the migrations run once, under their advisory lock.
    const started = await Promise.all(
      dirs.map((dir) =>
        startProcess(
          ['dist/src/cli.js', 'serve'],
          { PORT: '0', LOG_LEVEL: 'info', CORE_DATA_DIR: dir, DATABASE_URL: url, DATABASE_SCHEMA: schema, ...env },
          /"url":"(http:[^"]+)"/,
        ),
      ),
    );
    for (const s of started) servers.push({ child: s.child, url: s.match[1] });
  } catch (err) {
    await close();
    throw err;
  }
  return { schema, servers, close };
}

/**
 * Fire lag of `contracts` recurring contracts (every `everyTicks` ticks, created through both processes
 * in turn) over `seconds`: lag is a scheduled fire's row time minus the start of its due tick; missed
 * counts due ticks in the window that were collapsed into a later fire or never fired.
 */
export async function pgFireLag({ contracts = 1000, everyTicks = 10, seconds = 30, processes = 2 } = {}) {
  const url = process.env.DATABASE_URL;
  if (!url) return { skipped: 'DATABASE_URL is not set' };
  const { schema, servers, close } = await cluster(url, processes);
  try {
    const { key } = await call(servers[0].url, 'POST', '/api/demo-key/mint', undefined, {});
    const slugs = Array.from({ length: 10 }, (_, i) => `lag-${i}`);
    for (const slug of slugs) await call(servers[0].url, 'POST', '/api/chain/state-machines', key, { slug });
    const definition = {
      name: 'lag',
      states: { running: { initial: true } },
      transitions: [{ from: 'running', to: 'running', operator: 'KO42', trigger: { kind: 'every', every_ticks: everyTicks } }],
    };
    for (let i = 0; i < contracts; i += 20) {
      await Promise.all(
        Array.from({ length: Math.min(20, contracts - i) }, (_, j) =>
          call(servers[(i + j) % servers.length].url, 'POST', `/api/chain/${slugs[(i + j) % slugs.length]}/contracts`, key, { definition }),
        ),
      );
    }
    const start = Date.now();
    const startTick = tickOf(start) + 1;
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
    // The last tick whose fires are surely done (the current one may still be firing).
    const endTick = tickOf(Date.now()) - 1;
    const rows = await withClient(
      url,
      async (c) =>
        (
          await c.query(
            `SELECT body->>'created_at' AS at, (body->>'due_tick')::bigint AS due, (body->>'skipped')::int AS skipped, type AS id FROM "${schema}".log_rows WHERE stream LIKE '%transitions%' AND body->>'triggered_by' = 'trigger' ORDER BY seq`,
          )
        ).rows,
    );
    const inWindow = rows.filter((r) => Number(r.due) >= startTick && Number(r.due) <= endTick);
    const lags = inWindow.map((r) => Date.parse(r.at) - tickStartMs(Number(r.due)));
    const perDue = new Map();
    const lastDue = new Map();
    for (const r of rows) {
      perDue.set(`${r.id}:${r.due}`, (perDue.get(`${r.id}:${r.due}`) ?? 0) + 1);
      lastDue.set(r.id, Math.max(lastDue.get(r.id) ?? 0, Number(r.due)));
    }
    // Collapsed into a later fire, or still unfired at the end though due more than a tick before it.
    // A contract that never fired counts once (its phase is unknown).
    let missed = inWindow.reduce((n, r) => n + r.skipped, 0) + (contracts - lastDue.size);
    for (const due of lastDue.values()) if (due + everyTicks < endTick) missed += Math.floor((endTick - 1 - due) / everyTicks);
    // Due ticks of each contract in the window, from its phase (every contract fired at least once).
    let expected = 0;
    for (const due of lastDue.values()) {
      const first = startTick + ((((due - startTick) % everyTicks) + everyTicks) % everyTicks);
      if (first <= endTick) expected += Math.floor((endTick - first) / everyTicks) + 1;
    }
    return {
      processes,
      contracts,
      every_ticks: everyTicks,
      seconds,
      fires: inWindow.length,
      fires_expected: expected,
      contracts_fired: lastDue.size,
      missed_fires: missed,
      duplicate_fires: [...perDue.values()].filter((n) => n > 1).length,
      lag_ms: { p50: percentile(lags, 50), p99: percentile(lags, 99), max: lags.length ? Math.max(...lags) : null },
    };
  } finally {
    await close();
  }
}

/**
 * Audited appends to one machine's chain through `processes` server processes at once (the load split
 * between them), then `pohc/validate` over the result: rows per second (summed) and p99 (the worst).
 */
export async function pgAppends({ processes = 2, connections = 50, duration = 10, warmup = 2 } = {}) {
  const url = process.env.DATABASE_URL;
  if (!url) return { skipped: 'DATABASE_URL is not set' };
  const { servers, close } = await cluster(url, processes);
  try {
    const { key } = await call(servers[0].url, 'POST', '/api/demo-key/mint', undefined, {});
    const slug = 'bench-pg-chain';
    await call(servers[0].url, 'POST', '/api/chain/state-machines', key, { slug });
    const options = {
      connections: Math.max(1, Math.round(connections / processes)),
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ type: 'bench', payload: { sensor: 'a1', value: 21.5, unit: 'C' } }),
    };
    const target = (s) => `${s.url}/api/chain/${slug}/event`;
    await Promise.all(servers.map((s) => load(target(s), { ...options, duration: warmup })));
    const results = await Promise.all(servers.map((s) => load(target(s), { ...options, duration })));
    const validate = await call(servers[processes - 1].url, 'GET', `/api/chain/${slug}/pohc/validate`, key);
    return {
      processes,
      connections: options.connections * processes,
      duration_s: duration,
      rows_per_s: results.reduce((n, r) => n + r.rps, 0),
      p50_ms: Math.max(...results.map((r) => r.p50)),
      p99_ms: Math.max(...results.map((r) => r.p99)),
      errors: results.reduce((n, r) => n + r.errors, 0),
      chain_valid: validate.valid === true,
      rows_checked: validate.count,
    };
  } finally {
    await close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  if (args[0] === 'appends') {
    const [, processes, seconds] = args;
    console.log(JSON.stringify(await pgAppends({ processes: Number(processes ?? 2), duration: Number(seconds ?? 10) }), null, 2));
  } else {
    const [contracts, everyTicks, seconds] = args;
    console.log(
      JSON.stringify(await pgFireLag({ contracts: Number(contracts ?? 1000), everyTicks: Number(everyTicks ?? 10), seconds: Number(seconds ?? 30) }), null, 2),
    );
  }
}
