// Storage benchmark: hash-chained appends to one stream through the store port (no HTTP),
// 50 concurrent appenders, on lowdb (fsync on) and, when DATABASE_URL is set, on PostgreSQL with one
// store and with two stores (two pools, as two server processes would have) sharing the stream.
import { createHash, randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import pg from 'pg';
import { percentile, tempDataDir } from './lib.mjs';

const dist = (p) => new URL(`../dist/src/${p}`, import.meta.url).href;

function link(head, seq, worker) {
  const prev_hash = head?.state_hash ?? '0'.repeat(64);
  const row = {
    id: `bench:${seq}`,
    tick: seq,
    type: 'event',
    actor_uid: `u${worker}`,
    payload_digest: 'ab'.repeat(32),
    prev_hash,
    created_at: new Date().toISOString(),
  };
  return { ...row, state_hash: createHash('sha256').update(JSON.stringify(row)).digest('hex') };
}

/** `appenders` loops spread over `stores`, each appending for `seconds`; then checks the chain links up. */
async function appendLoad(stores, { appenders = 50, seconds = 10, stream = 'chain/bench' } = {}) {
  const latencies = [];
  const until = performance.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: appenders }, async (_, worker) => {
      const store = stores[worker % stores.length];
      while (performance.now() < until) {
        const t0 = performance.now();
        await store.logs.append(stream, (head, seq) => link(head, seq, worker));
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  const rows = await stores[0].logs.read(stream);
  const linked = rows.every((row, i) => row.seq === i && (i === 0 || row.prev_hash === rows[i - 1].state_hash));
  return {
    stores: stores.length,
    appenders,
    appends: latencies.length,
    appends_per_s: Math.round(latencies.length / elapsed),
    p50_ms: +percentile(latencies, 50).toFixed(2),
    p99_ms: +percentile(latencies, 99).toFixed(2),
    chain_linear: linked && rows.length === latencies.length,
  };
}

async function onLowdb(seconds) {
  const { createLowdbStore } = await import(dist('storage/lowdb/lowdb.store.js'));
  const dataDir = tempDataDir();
  const store = createLowdbStore({ dataDir });
  await store.open();
  try {
    return await appendLoad([store], { seconds });
  } finally {
    await store.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function onPostgres(url, storeCount, seconds) {
  const { createPostgresStore } = await import(dist('storage/postgres/postgres.store.js'));
  const schema = `bench_${randomBytes(6).toString('hex')}`;
  const stores = Array.from({ length: storeCount }, () => createPostgresStore({ connectionString: url, schema }));
  for (const store of stores) await store.open();
  try {
    return await appendLoad(stores, { seconds });
  } finally {
    await Promise.all(stores.map((store) => store.close()));
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query(`DROP SCHEMA "${schema}" CASCADE`);
    await client.end();
  }
}

export async function storageAppends({ seconds = 10 } = {}) {
  const url = process.env.DATABASE_URL;
  const results = { lowdb: await onLowdb(seconds) };
  if (!url) return { ...results, postgres: 'skipped: DATABASE_URL is not set' };
  results.postgres_one_store = await onPostgres(url, 1, seconds);
  results.postgres_two_stores = await onPostgres(url, 2, seconds);
  return results;
}
