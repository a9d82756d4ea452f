// Write rates as the embedded store fills: mints demo keys, then creates one machine per key,
// over HTTP against one `serve` on lowdb (fsync on, quotas off), and reports the rate and p50 of every
// block of 1,000. The issue's target: the block at 10,000 runs at least 0.75 of the first block's rate.
//   node bench/store-growth.mjs [keys=10000] [machines=10000]
// BENCH_BUILD=/path/to/checkout runs that checkout's dist/ instead (for before/after figures);
// BENCH_DATABASE_URL=postgres://... runs it on PostgreSQL (a fresh schema, dropped after).
import { rmSync } from 'node:fs';
import path from 'node:path';
import { callJson as call, dropSchema, percentile, root, startProcess, stop, tempDataDir } from './lib.mjs';

const BLOCK = 1000;
const CONCURRENCY = 10;

/** Runs `op(i)` for i in [0, total) with CONCURRENCY callers; returns per-block { at, per_s, p50_ms }. */
async function blocks(total, op) {
  const out = [];
  for (let start = 0; start < total; start += BLOCK) {
    const n = Math.min(BLOCK, total - start);
    const latencies = [];
    let next = start;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < start + n) {
          const i = next++;
          const t = performance.now();
          await op(i);
          latencies.push(performance.now() - t);
        }
      }),
    );
    const seconds = (performance.now() - t0) / 1000;
    out.push({ stored: start + n, per_s: Math.round(n / seconds), p50_ms: +percentile(latencies, 50).toFixed(1) });
    console.error(JSON.stringify({ block: start + n, per_s: out.at(-1).per_s, p50_ms: out.at(-1).p50_ms }));
  }
  return out;
}

const summary = (rows) => ({ first: rows[0], last: rows.at(-1), last_over_first: +(rows.at(-1).per_s / rows[0].per_s).toFixed(2) });

export async function storeGrowth({ keys = 10_000, machines = 10_000, build = process.env.BENCH_BUILD ?? root } = {}) {
  const dataDir = tempDataDir();
  const databaseUrl = process.env.BENCH_DATABASE_URL;
  const schema = `bench_growth_${process.pid}_${Date.now()}`;
  const pg = databaseUrl ? { DATABASE_URL: databaseUrl, DATABASE_SCHEMA: schema } : {};
  const { child, match } = await startProcess(
    [path.join(build, 'dist/src/cli.js'), 'serve'],
    { PORT: '0', CORE_DATA_DIR: dataDir, LOG_LEVEL: 'info', ...pg },
    /"url":"(http:[^"]+)"/,
  );
  const url = match[1];
  try {
    const minted = [];
    const keyRows = await blocks(keys, async (i) => {
      minted[i] = (await call(url, 'POST', '/api/demo-key/mint', { body: {} })).key;
    });
    const machineRows = await blocks(Math.min(machines, keys), async (i) => {
      await call(url, 'POST', '/api/chain/state-machines', { key: minted[i], body: { slug: `grow-${i}` } });
    });
    return {
      build,
      backend: databaseUrl ? 'postgres' : 'lowdb',
      keys: summary(keyRows),
      machines: machineRows.length > 0 ? summary(machineRows) : 'skipped',
      key_blocks: keyRows,
      machine_blocks: machineRows,
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
  const [keys, machines] = process.argv.slice(2).map(Number);
  console.log(JSON.stringify(await storeGrowth({ keys: keys || undefined, machines: Number.isNaN(machines) ? undefined : machines }), null, 2));
}
