// Write rates at a given store size: the store is seeded to each size in-process, through
// the project's own services over its own store adapter (so every record and index is what the server
// writes: a user, its demo key, one machine per user with its genesis row and machine key, even ones
// public), then one `serve` is started on it and times a block of demo-key mints and a block of machine
// creations over HTTP, and a few list latencies. Sizes grow in place: seeding to 10,000 adds to the 1,000.
//   node bench/write-rates.mjs [sizes=1000,10000,100000] [mints=1000] [creates=500]
// BENCH_BUILD=/path/to/checkout runs that checkout's dist/ (server and seeding);
// BENCH_DATABASE_URL=postgres://... runs it on PostgreSQL (a fresh schema, dropped after).
import { rmSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { callJson as call, dropSchema, rssMiB, BENCH_ENV, percentile, root, seedingStore, startProcess, stop, tempDataDir } from './lib.mjs';
import { timed } from './list-latency.mjs';

const CONCURRENCY = 10;
const SEED_CONCURRENCY = 32;

/** Runs `op(i)` for i in [0, n) with `concurrency` callers; returns the rate and latency percentiles. */
async function block(n, op, concurrency = CONCURRENCY) {
  const latencies = [];
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) {
        const i = next++;
        const t = performance.now();
        await op(i);
        latencies.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  const ms = (p) => +percentile(latencies, p).toFixed(1);
  return { n, per_s: Math.round(n / seconds), p50_ms: ms(50), p90_ms: ms(90), p99_ms: ms(99), max_ms: ms(100) };
}

/**
 * Adds users (each with its demo key and one machine) until `target` are stored, in-process with the
 * build's own core over the store the server will open; fsync off on lowdb (the server reopens it, as after
 * a clean shutdown). Returns the raw keys added.
 */
async function seed({ build, env, dataDir, from, target }) {
  const dist = (p) => pathToFileURL(path.join(build, 'dist/src', p)).href;
  const { createCore } = await import(dist('compose.js'));
  const { loadConfig } = await import(dist('config.js'));
  const config = loadConfig({ ...process.env, ...BENCH_ENV, LOG_LEVEL: 'silent', CORE_DATA_DIR: dataDir, ...env });
  const core = await createCore({ config, store: await seedingStore(dist, config) });
  const keys = [];
  try {
    await block(
      target - from,
      async (i) => {
        const n = from + i;
        const { key } = await core.services.identity.mintDemoKey();
        const caller = await core.services.identity.resolveKey(key);
        await core.services.machines.create({ slug: `seed-${n}`, is_public: n % 2 === 0 }, caller);
        keys[i] = key;
      },
      SEED_CONCURRENCY,
    );
  } finally {
    await core.close();
  }
  return keys;
}

/** List p50/p90 on a store of `size` users (`keys[i]` owns `seed-<i>`, even ones public), one request at a time. */
async function lists(url, keys) {
  const last = keys.length - 1;
  const result = {
    user_machines: await timed(url, () => '/api/chain/state-machines?limit=20', keys[last - (last % 2 === 0 ? 1 : 0)]),
    anonymous_machines: await timed(url, () => '/api/chain/state-machines?limit=20'),
    aggregate_list: await timed(url, () => '/api/chain/aggregate/list?limit=20'),
    newest: await timed(url, (i) => `/api/chain/newest?limit=${10 + i}`),
    recent: await timed(url, (i) => `/api/chain/recent?limit=${10 + i}`),
  };
  const lookups = [];
  for (let i = 0; i < 30; i++) {
    const n = (i * 7919) % keys.length;
    const t = performance.now();
    await call(url, 'GET', `/api/chain/state-machines/seed-${n}`, { key: keys[n] });
    lookups.push(performance.now() - t);
  }
  result.key_lookup = { p50_ms: +percentile(lookups, 50).toFixed(1), p90_ms: +percentile(lookups, 90).toFixed(1) };
  return result;
}

/**
 * For each size (ascending): seed to it, start `serve`, time `mints` demo-key mints then `creates` machine
 * creations (by the keys just minted), then the lists; the server is stopped before seeding the next size.
 * `databaseUrl`: PostgreSQL (a fresh schema, dropped after); otherwise lowdb in a temp data dir.
 */
export async function writeRates({
  sizes = [1000, 10_000, 100_000],
  mints = 1000,
  creates = 500,
  databaseUrl = process.env.BENCH_DATABASE_URL,
  build = process.env.BENCH_BUILD ?? root,
  withLists = true,
  log = (m) => process.stderr.write(`${m}\n`),
} = {}) {
  const dataDir = tempDataDir();
  const schema = `bench_rates_${process.pid}_${Date.now()}`;
  const env = databaseUrl ? { DATABASE_URL: databaseUrl, DATABASE_SCHEMA: schema } : {};
  const keys = [];
  const out = [];
  try {
    for (const size of sizes) {
      const t0 = performance.now();
      // The measured writes of the previous size are stored too: they count toward this one.
      const stored = keys.length + out.reduce((n, r) => n + r.mint.n + Math.ceil(r.mint.n / 10), 0);
      keys.push(...(await seed({ build, env, dataDir, from: keys.length, target: keys.length + Math.max(0, size - stored) })));
      const seedS = +((performance.now() - t0) / 1000).toFixed(1);
      const { child, match } = await startProcess(
        [path.join(build, 'dist/src/cli.js'), 'serve'],
        { PORT: '0', CORE_DATA_DIR: dataDir, LOG_LEVEL: 'info', ...env },
        /"url":"(http:[^"]+)"/,
      );
      const url = match[1];
      try {
        // Unmeasured warm-up (a tenth of each block): JIT and the server's first reads, at every size alike.
        const warm = [];
        await block(Math.ceil(mints / 10), async (i) => {
          warm[i] = (await call(url, 'POST', '/api/demo-key/mint', { body: {} })).key;
        });
        await block(Math.ceil(Math.min(creates, mints) / 10), async (i) => {
          await call(url, 'POST', '/api/chain/state-machines', { key: warm[i], body: { slug: `warm${size}-${i}` } });
        });
        const minted = [];
        const mint = await block(mints, async (i) => {
          minted[i] = (await call(url, 'POST', '/api/demo-key/mint', { body: {} })).key;
        });
        const create = await block(Math.min(creates, mints), async (i) => {
          await call(url, 'POST', '/api/chain/state-machines', { key: minted[i], body: { slug: `w${size}-${i}` } });
        });
        const row = { size, seed_s: seedS, mint, create, server_rss_mib: rssMiB(child.pid), ...(withLists ? { lists: await lists(url, keys) } : {}) };
        out.push(row);
        log(
          JSON.stringify({
            size,
            seed_s: seedS,
            mint_per_s: mint.per_s,
            mint_p50: mint.p50_ms,
            mint_max: mint.max_ms,
            create_per_s: create.per_s,
            create_p50: create.p50_ms,
            create_max: create.max_ms,
            rss_mib: row.server_rss_mib,
          }),
        );
      } finally {
        await stop(child);
      }
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
    if (databaseUrl) {
      await dropSchema(databaseUrl, schema);
    }
  }
  const ratio = (kind, i) => +(out[i][kind].per_s / out[0][kind].per_s).toFixed(2);
  return {
    build,
    backend: databaseUrl ? 'postgres' : 'lowdb',
    per_size: out,
    ratios: Object.fromEntries(out.slice(1).map((r, i) => [`${r.size}/${out[0].size}`, { mint: ratio('mint', i + 1), create: ratio('create', i + 1) }])),
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [sizes, mints, creates] = process.argv.slice(2);
  const result = await writeRates({
    ...(sizes ? { sizes: sizes.split(',').map(Number) } : {}),
    ...(mints ? { mints: Number(mints) } : {}),
    ...(creates ? { creates: Number(creates) } : {}),
  });
  console.log(JSON.stringify(result, null, 2));
}
