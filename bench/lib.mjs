import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';

export const root = path.resolve(new URL('..', import.meta.url).pathname);

/**
 * Settings every benchmarked server gets: lowdb (an exported DATABASE_URL must not leak into the lowdb
 * rows), and a per-key rate limit and SSE cap far above the load, so the limiter still runs (its cost is
 * measured) but never refuses the load generator's single key or address.
 */
export const BENCH_ENV = { DATABASE_URL: '', CORE_RATE_LIMIT: '10000000/10000000', CORE_SSE_MAX_PER_CALLER: '100000', CORE_QUOTAS: 'off' };

export function tempDataDir() {
  return mkdtempSync(path.join(os.tmpdir(), 'core-bench-'));
}

/** Starts a node script and resolves with the first line matching `ready` on stdout or stderr. */
export function startProcess(args, env, ready) {
  // Servers run on lowdb unless the caller passes DATABASE_URL: an exported one must not leak into them.
  const child = spawn(process.execPath, args, { cwd: root, env: { ...process.env, ...BENCH_ENV, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let buffer = '';
    const onData = (chunk) => {
      buffer += chunk.toString();
      const match = ready.exec(buffer);
      if (match) resolve({ child, match });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}: ${buffer}`)));
  });
}

export function stop(child) {
  return new Promise((resolve) => {
    child.once('exit', resolve);
    child.kill('SIGTERM');
  });
}

export async function load(url, { connections = 50, duration = 10, pipelining = 1, method = 'GET', headers, body } = {}) {
  const result = await autocannon({ url, connections, duration, pipelining, method, headers, body });
  return {
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.non2xx,
  };
}

export function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** One JSON request to a running server; throws with the answer on any non-2xx status. */
export async function callJson(url, method, route, { key, body } = {}) {
  const headers = { 'content-type': 'application/json' };
  if (key) headers.authorization = `Bearer ${key}`;
  const res = await fetch(`${url}${route}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const json = await res.json();
  if (!res.ok) throw new Error(`${method} ${route}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/** Drops a bench's PostgreSQL schema and everything in it, over a connection of its own. */
export async function dropSchema(url, schema) {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}

/** A process's resident memory in MiB (Linux `/proc`). */
export function rssMiB(pid) {
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024);
}

/**
 * The store a benchmark seeds through, in-process with a build's own core (`dist(p)`: a module URL in
 * that build): lowdb without fsync (the server reopens it as after a clean shutdown); PostgreSQL without
 * NOTIFY (nobody listens, and sent one at a time tens of thousands would still be queued at the end). The
 * records written are the ones the server writes.
 */
export async function seedingStore(dist, config) {
  if (!config.databaseUrl) {
    const { createLowdbStore } = await import(dist('storage/lowdb/lowdb.store.js'));
    return createLowdbStore({ dataDir: config.dataDir, fsync: false });
  }
  const { createPostgresStore } = await import(dist('storage/postgres/postgres.store.js'));
  const store = createPostgresStore({ connectionString: config.databaseUrl, schema: config.databaseSchema });
  return { ...store, docs: store.docs, logs: store.logs, pubsub: { publish() {}, subscribe: () => () => {}, onResume: () => () => {} } };
}

/** Runs `op(i)` for every i in [0, total) with `concurrency` callers at once. */
export async function pool(total, concurrency, op) {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) await op(next++);
    }),
  );
}
