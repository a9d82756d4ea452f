// PostgreSQL benchmark (issue 8): scheduler fire lag with many recurring contracts shared by two servers
// on one database schema (two cores in this process: separate pools, sessions, schedulers, caches).
//   DATABASE_URL=... node bench/postgres.mjs [contracts] [every_ticks] [seconds] [distDir]
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import pg from 'pg';
import { percentile, tempDataDir } from './lib.mjs';

export async function pgFireLag({ contracts = 1000, everyTicks = 10, seconds = 30, distDir = new URL('../dist', import.meta.url).pathname } = {}) {
  const url = process.env.DATABASE_URL;
  if (!url) return { skipped: 'DATABASE_URL is not set' };
  const { startHttpServer } = await import(`${distDir}/src/server.js`);
  const { loadConfig } = await import(`${distDir}/src/config.js`);
  const { TICK_MS, tickStartMs } = await import(`${distDir}/src/lib/clock.js`);
  const schema = `bench_${randomBytes(4).toString('hex')}`;
  const dirs = [tempDataDir(), tempDataDir()];
  const env = (dir) => ({ ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', CORE_DATA_DIR: dir, DATABASE_URL: url, DATABASE_SCHEMA: schema });
  const servers = [];
  for (const dir of dirs) servers.push(await startHttpServer({ config: loadConfig(env(dir)) }));
  const call = async (server, method, p, key, body) => {
    const res = await fetch(`${server.url}${p}`, { method, headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) }, body: body === undefined ? undefined : JSON.stringify(body) });
    return res.json();
  };
  try {
    const { key } = await call(servers[0], 'POST', '/api/demo-key/mint', undefined, {});
    const slugs = Array.from({ length: 10 }, (_, i) => `lag-${i}`);
    for (const slug of slugs) await call(servers[0], 'POST', '/api/chain/state-machines', key, { slug });
    const definition = { name: 'lag', states: { running: { initial: true } }, transitions: [{ from: 'running', to: 'running', operator: 'KO42', trigger: { kind: 'every', every_ticks: everyTicks } }] };
    for (let i = 0; i < contracts; i += 20) {
      await Promise.all(Array.from({ length: Math.min(20, contracts - i) }, (_, j) => call(servers[(i + j) % 2], 'POST', `/api/chain/${slugs[(i + j) % slugs.length]}/contracts`, key, { definition })));
    }
    const start = Date.now();
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const { rows } = await client.query(`SELECT body->>'created_at' AS at, (body->>'due_tick')::bigint AS due, body->>'contract_id' AS id FROM "${schema}".log_rows WHERE stream LIKE '%transitions%' AND body->>'triggered_by' = 'trigger'`);
    await client.end();
    const lags = rows.filter((r) => Date.parse(r.at) >= start).map((r) => Date.parse(r.at) - tickStartMs(Number(r.due)));
    const perDue = new Map();
    for (const r of rows) perDue.set(`${r.id}:${r.due}`, (perDue.get(`${r.id}:${r.due}`) ?? 0) + 1);
    const expected = Math.floor((seconds * 1000) / (TICK_MS * everyTicks)) * contracts;
    return {
      contracts, every_ticks: everyTicks, seconds, fires: lags.length, expected_fires_about: expected,
      duplicate_fires: [...perDue.values()].filter((n) => n > 1).length,
      lag_ms: { p50: percentile(lags, 50), p99: percentile(lags, 99), max: Math.max(...lags) },
    };
  } finally {
    await Promise.all(servers.map((s) => s.stop(1000)));
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await client.end();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [contracts, everyTicks, seconds, distDir] = process.argv.slice(2);
  console.log(JSON.stringify(await pgFireLag({ contracts: Number(contracts ?? 1000), everyTicks: Number(everyTicks ?? 10), seconds: Number(seconds ?? 30), ...(distDir ? { distDir } : {}) }), null, 2));
}
