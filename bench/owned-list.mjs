// A caller's own machines: one key owns `owned` private machines (and, every tenth
// machine stored, another key's public one sits between them); then the caller's first page and a page
// deep in its list are timed, one request at a time. Target: p50 under 10 ms at 10,000 owned, on lowdb
// and on PostgreSQL (BENCH_DATABASE_URL=postgres://...: a fresh schema, dropped after).
//   node bench/owned-list.mjs [owned=10000]   (BENCH_BUILD=/path/to/checkout: that checkout's dist/, for a before figure)
import { rmSync } from 'node:fs';
import path from 'node:path';
import { callJson as call, dropSchema, root, startProcess, stop, tempDataDir } from './lib.mjs';
import { timed } from './list-latency.mjs';

export async function ownedList({ owned = 10_000, databaseUrl, build = process.env.BENCH_BUILD ?? root } = {}) {
  const dataDir = tempDataDir();
  const schema = `bench_owned_${process.pid}_${Date.now()}`;
  const pg = databaseUrl ? { DATABASE_URL: databaseUrl, DATABASE_SCHEMA: schema } : {};
  const { child, match } = await startProcess(
    [path.join(build, 'dist/src/cli.js'), 'serve'],
    { PORT: '0', CORE_DATA_DIR: dataDir, LOG_LEVEL: 'info', CORE_RATE_LIMIT: 'off', ...pg },
    /"url":"(http:[^"]+)"/,
  );
  const url = match[1];
  try {
    const owner = (await call(url, 'POST', '/api/demo-key/mint', { body: {} })).key;
    const other = (await call(url, 'POST', '/api/demo-key/mint', { body: {} })).key;
    const t0 = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: 10 }, async () => {
        while (next < owned) {
          const i = next++;
          await call(url, 'POST', '/api/chain/state-machines', { key: owner, body: { slug: `own-${i}`, is_public: false } });
          if (i % 10 === 9) await call(url, 'POST', '/api/chain/state-machines', { key: other, body: { slug: `pub-${i}`, is_public: true } });
        }
      }),
    );
    const fillS = (performance.now() - t0) / 1000;
    const first = await timed(url, () => '/api/chain/state-machines?limit=50', owner);
    // A cursor about half way down: the page after it must not cost what came before it.
    let cursor = null;
    for (let pages = 0; pages < Math.floor(owned / 100); pages++) {
      cursor = (await call(url, 'GET', `/api/chain/state-machines?limit=50${cursor ? `&cursor=${cursor}` : ''}`, { key: owner })).next_cursor;
    }
    const deep = await timed(url, () => `/api/chain/state-machines?limit=50&cursor=${cursor}`, owner);
    return { build, backend: databaseUrl ? 'postgres' : 'lowdb', owned, fill_s: +fillS.toFixed(1), first_page: first, page_half_way: deep };
  } finally {
    await stop(child);
    rmSync(dataDir, { recursive: true, force: true });
    if (databaseUrl) await dropSchema(databaseUrl, schema);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [owned] = process.argv.slice(2).map(Number);
  console.log(JSON.stringify(await ownedList({ owned: owned || undefined, databaseUrl: process.env.BENCH_DATABASE_URL }), null, 2));
}
