// List and lookup latency with a full store: fills one `serve` with `keys` demo keys
// and one machine per key (even ones public), then times, one request at a time, listing a user's
// machines, the public lists (aggregate/list, newest, active, recent, seal) and a key lookup.
// Target: p50 under 50 ms each with 10,000 machines and 10,000 keys, on lowdb and on PostgreSQL.
//   node bench/list-latency.mjs [keys=10000]
// BENCH_BUILD=/path/to/checkout runs that checkout's dist/ (for before/after figures);
// BENCH_DATABASE_URL=postgres://... runs it on PostgreSQL (a fresh schema, dropped after).
import { rmSync } from 'node:fs';
import path from 'node:path';
import { callJson as call, dropSchema, percentile, pool, root, startProcess, stop, tempDataDir } from './lib.mjs';

const CONCURRENCY = 10;
const SAMPLES = 30;

const fill = (total, op) => pool(total, CONCURRENCY, op);

/**
 * p50 and p90 of `SAMPLES` sequential requests after 3 unmeasured ones. `route(i)` varies a parameter
 * where the answer is cached per tick (active, recent, seal), so each sample computes its answer.
 */
export async function timed(url, route, key) {
  const ms = [];
  for (let i = -3; i < SAMPLES; i++) {
    const t = performance.now();
    await call(url, 'GET', route(i + 3), { key });
    if (i >= 0) ms.push(performance.now() - t);
  }
  return { p50_ms: +percentile(ms, 50).toFixed(1), p90_ms: +percentile(ms, 90).toFixed(1) };
}

export async function listLatency({ keys = 10_000, build = process.env.BENCH_BUILD ?? root } = {}) {
  const dataDir = tempDataDir();
  const databaseUrl = process.env.BENCH_DATABASE_URL;
  const schema = `bench_lists_${process.pid}_${Date.now()}`;
  const pg = databaseUrl ? { DATABASE_URL: databaseUrl, DATABASE_SCHEMA: schema } : {};
  const { child, match } = await startProcess(
    [path.join(build, 'dist/src/cli.js'), 'serve'],
    { PORT: '0', CORE_DATA_DIR: dataDir, LOG_LEVEL: 'info', ...pg },
    /"url":"(http:[^"]+)"/,
  );
  const url = match[1];
  try {
    const minted = [];
    let t0 = performance.now();
    await fill(keys, async (i) => {
      minted[i] = (await call(url, 'POST', '/api/demo-key/mint', { body: {} })).key;
    });
    const fillKeysS = (performance.now() - t0) / 1000;
    t0 = performance.now();
    await fill(keys, async (i) => {
      await call(url, 'POST', '/api/chain/state-machines', { key: minted[i], body: { slug: `list-${i}`, is_public: i % 2 === 0 } });
    });
    const fillMachinesS = (performance.now() - t0) / 1000;
    // A user near the end of the store, owning one private machine: the listing cannot stop early on its own.
    const user = minted[keys - 1];
    const results = {
      user_machines: await timed(url, () => '/api/chain/state-machines?limit=20', user),
      anonymous_machines: await timed(url, () => '/api/chain/state-machines?limit=20'),
      aggregate_list: await timed(url, () => '/api/chain/aggregate/list?limit=20'),
      newest: await timed(url, (i) => `/api/chain/newest?limit=${10 + i}`),
      // Right after the fill every public machine has rows in the default window (60 ticks): the worst case.
      active_all_in_window: await timed(url, (i) => `/api/chain/active?limit=${10 + i}`),
      recent: await timed(url, (i) => `/api/chain/recent?limit=${10 + i}`),
      seal: await timed(url, (i) => `/api/chain/seal?limit=${10 + i}`),
    };
    // Then a quiet window with 100 public machines written to: `active` reads only those.
    await new Promise((resolve) => setTimeout(resolve, 61 * 777));
    await fill(100, async (i) => {
      const n = (i * 2 * 37) % keys;
      await call(url, 'POST', `/api/chain/list-${n}/event`, { key: minted[n], body: { type: 'bench', payload: { i } } });
    });
    results.active = await timed(url, (i) => `/api/chain/active?limit=${10 + i}`);
    // A key lookup: each sample authenticates a different key (read by its hash) and reads its machine.
    const lookups = [];
    for (let i = 0; i < SAMPLES; i++) {
      const n = (i * 331) % keys;
      const t = performance.now();
      await call(url, 'GET', `/api/chain/state-machines/list-${n}`, { key: minted[n] });
      lookups.push(performance.now() - t);
    }
    results.key_lookup = { p50_ms: +percentile(lookups, 50).toFixed(1), p90_ms: +percentile(lookups, 90).toFixed(1) };
    return {
      build,
      backend: databaseUrl ? 'postgres' : 'lowdb',
      keys,
      machines: keys,
      fill_s: { keys: +fillKeysS.toFixed(1), machines: +fillMachinesS.toFixed(1) },
      latency: results,
      worst_p50_ms: Math.max(...Object.values(results).map((r) => r.p50_ms)),
    };
  } finally {
    await stop(child);
    rmSync(dataDir, { recursive: true, force: true });
    if (databaseUrl) {
      await dropSchema(databaseUrl, schema);
    }
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [keys] = process.argv.slice(2).map(Number);
  console.log(JSON.stringify(await listLatency({ keys: keys || undefined }), null, 2));
}
