// Chain benchmark: audited appends through `POST /api/chain/{slug}/event`, 50 concurrent
// clients, on a machine whose chain already holds 1,000,000 rows. The rows are pre-filled through the
// store port (not over HTTP), hash-chained like real rows, while no server runs; the server then opens
// the data dir as it would after a restart.
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { callJson as call, rssMiB, load, startProcess, stop, tempDataDir } from './lib.mjs';

const dist = (p) => new URL(`../dist/src/${p}`, import.meta.url).href;

/** Bytes of every log file of a data dir (lowdb): what the appends wrote. */
function logBytes(dataDir) {
  try {
    const dir = path.join(dataDir, 'logs');
    return readdirSync(dir).reduce((n, f) => n + statSync(path.join(dir, f)).size, 0);
  } catch {
    return 0;
  }
}

async function serve(dataDir, env = {}) {
  const { child, match } = await startProcess(
    ['dist/src/cli.js', 'serve'],
    { PORT: '0', CORE_DATA_DIR: dataDir, LOG_LEVEL: 'info', ...env },
    /"url":"(http:[^"]+)"/,
  );
  return { child, url: match[1] };
}

/** Appends `rows` hash-chained rows to the machine's chain through the store port, in batches. */
async function prefill(dataDir, slug, rows) {
  const { createLowdbStore } = await import(dist('storage/lowdb/lowdb.store.js'));
  const { seal } = await import(dist('domain/chain/hash-chain.js'));
  const { createMachineRepository } = await import(dist('domain/chain/machine-repository.js'));
  const { createChainLogRepository } = await import(dist('domain/chain/chain-log-repository.js'));
  const store = createLowdbStore({ dataDir, fsync: false });
  await store.open();
  const machine = await createMachineRepository(store).get(slug);
  const chain = createChainLogRepository(store);
  const start = await chain.count(slug);
  const nowTick = Math.floor(Date.now() / 777);
  const span = Math.max(1, nowTick - machine.genesis_tick);
  const started = performance.now();
  const batch = 20_000;
  for (let done = start; done < rows;) {
    const n = Math.min(batch, rows - done);
    const pending = [];
    for (let i = 0; i < n; i++) {
      const at = done + i;
      pending.push(
        chain.append(slug, (head, seq) =>
          seal({
            id: `${slug}:${seq}`,
            tick: Math.max(head?.tick ?? machine.genesis_tick, machine.genesis_tick + Math.floor((at * span) / rows)),
            type: at % 10 === 0 ? 'state' : 'event',
            transition_id: `prefill-${seq}`,
            actor_uid: machine.owner_uid,
            payload_digest: 'ab'.repeat(32),
            prev_hash: head.state_hash,
            created_at: new Date(machine.genesis_tick * 777).toISOString(),
            seq,
          }),
        ),
      );
    }
    await Promise.all(pending);
    done += n;
  }
  const count = await chain.count(slug);
  await store.close();
  return { rows: count, seconds: +((performance.now() - started) / 1000).toFixed(1) };
}

export async function chainAppends({
  rows = 1_000_000,
  connections = 50,
  duration = 20,
  warmup = 3,
  env = {},
  event = { type: 'bench', payload: { sensor: 'a1', value: 21.5, unit: 'C' } },
} = {}) {
  const dataDir = tempDataDir();
  const slug = 'bench-chain';
  let server = await serve(dataDir, env);
  const { key } = await call(server.url, 'POST', '/api/demo-key/mint', { body: {} });
  await call(server.url, 'POST', '/api/chain/state-machines', { key, body: { slug } });
  await stop(server.child);

  const filled = rows > 0 ? await prefill(dataDir, slug, rows) : { rows: 0, seconds: 0 };

  server = await serve(dataDir, env);
  try {
    const rssStart = rssMiB(server.child.pid);
    // The first call opens the 1M-row log and builds its index; time it apart from the load.
    const openStarted = performance.now();
    const head = await call(server.url, 'GET', `/api/chain/${slug}/state`, { key });
    const openMs = Math.round(performance.now() - openStarted);
    const rssBefore = rssMiB(server.child.pid);
    const target = `${server.url}/api/chain/${slug}/event`;
    const options = {
      connections,
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify(event),
    };
    await load(target, { ...options, duration: warmup });
    const countBefore = (await call(server.url, 'GET', `/api/chain/${slug}/state`, { key })).row_count;
    const bytesBefore = logBytes(dataDir);
    const result = await load(target, { ...options, duration });
    const bytesAfter = logBytes(dataDir);
    const rssAfter = rssMiB(server.child.pid);
    const after = await call(server.url, 'GET', `/api/chain/${slug}/state`, { key });
    const validated = await fetch(`${server.url}/api/chain/${slug}/activity?limit=2`, { headers: { authorization: `Bearer ${key}` } }).then((r) => r.json());
    const [newest, previous] = validated.rows;
    return {
      prefill: filled,
      rows_before_load: head.row_count,
      rows_after: after.row_count,
      // Everything one request wrote: its chain row and its encrypted payload row.
      bytes_per_append: after.row_count > countBefore ? Math.round((bytesAfter - bytesBefore) / (after.row_count - countBefore)) : 0,
      log_open_ms: openMs,
      connections,
      duration_s: duration,
      rows_per_s: result.rps,
      p50_ms: result.p50,
      p99_ms: result.p99,
      errors: result.errors,
      rss_mib: { at_start: rssStart, after_index: rssBefore, after_load: rssAfter },
      head_links_previous: newest.prev_hash === previous.state_hash,
    };
  } finally {
    await stop(server.child);
  }
}

// Allows `node bench/chain.mjs` alone; `npm run bench -- chain` goes through run.mjs.
if (import.meta.url === `file://${process.argv[1]}`) {
  process.stdout.write(`${JSON.stringify(await chainAppends(), null, 2)}\n`);
}
