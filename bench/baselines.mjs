// Baselines measured in the same run as the workloads they compare with.
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import path from 'node:path';
import { percentile, tempDataDir } from './lib.mjs';

/** `concurrency` loops appending `rowBytes`-byte lines to one file for `seconds` (fs.appendFile, no fsync). */
export async function appendFileLoop({ rowBytes, concurrency = 50, seconds = 10 }) {
  const dir = tempDataDir();
  const file = path.join(dir, 'baseline.jsonl');
  const line = Buffer.from(`${'x'.repeat(Math.max(1, rowBytes - 1))}\n`);
  const handle = await open(file, 'a');
  try {
    return { ...(await closedLoop(concurrency, seconds, () => handle.appendFile(line))), row_bytes: line.length };
  } finally {
    await handle.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `concurrency` loops each awaiting `op` back to back for `seconds`: rate and p99 of one op. */
async function closedLoop(concurrency, seconds, op) {
  const latencies = [];
  const until = performance.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < until) {
        const t0 = performance.now();
        await op();
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  return { rows_per_s: Math.round(latencies.length / elapsed), p99_ms: +percentile(latencies, 99).toFixed(2) };
}

/** pgbench-style: `concurrency` clients each inserting one row per statement (autocommit) for `seconds`. */
export async function pgInsertLoop(url, { rowBytes, concurrency = 50, seconds = 10 }) {
  const { default: pg } = await import('pg');
  const pool = new pg.Pool({ connectionString: url, max: concurrency });
  const table = `bench_raw_${process.pid}_${Date.now()}`;
  await pool.query(`CREATE TABLE ${table} (id bigserial PRIMARY KEY, data jsonb NOT NULL)`);
  const row = JSON.stringify({ x: 'x'.repeat(Math.max(1, rowBytes - 10)) });
  try {
    return await closedLoop(concurrency, seconds, () => pool.query(`INSERT INTO ${table} (data) VALUES ($1)`, [row]));
  } finally {
    await pool.query(`DROP TABLE ${table}`);
    await pool.end();
  }
}

/** Spawn of `node -e` printing one line, timed to that line on stdout. */
export async function nodeEStart(runs = 15) {
  const times = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await new Promise((resolve, reject) => {
      const child = spawn(process.execPath, ['-e', 'console.log("ready")'], { stdio: ['ignore', 'pipe', 'ignore'] });
      child.stdout.once('data', () => {
        times.push(performance.now() - started);
      });
      child.once('error', reject);
      child.once('exit', resolve);
    });
  }
  return { runs, median_ms: Math.round(percentile(times, 50)), p90_ms: Math.round(percentile(times, 90)) };
}
