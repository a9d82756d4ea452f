// Contracts benchmark: recurring contracts spread over many machines, with mixed
// triggers (`every`, `cron` and `on_event`), on the lowdb default (fsync on) or PostgreSQL
// (BENCH_DATABASE_URL), for `seconds` of wall time. Fire lag of a scheduled fire is the time from the
// start of its due tick to the moment its transition row was built (`created_at`); of an event fire,
// from the moment the bench posted the event. A missed fire is a due tick in the window that no row
// covers, one collapsed into a later fire (`skipped`), or an event no listener's row answers. Contracts
// are seeded in-process before the server starts (`contracts-seed.mjs`); the rows are read back after the
// server stops, a line at a time (a 10,000-contract run writes gigabytes: one string would not hold
// them), with the bytes each fire stored.
//   [BENCH_DATABASE_URL=postgres://...] node bench/contracts.mjs [contracts=1000] [seconds=60] [mix=every|mixed|mixed-x<f>] [settle ticks=10]
import { createReadStream, createWriteStream, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { seedContracts } from './contracts-seed.mjs';
import { dropSchema, percentile, pool, startProcess, stop, tempDataDir } from './lib.mjs';

const TICK_MS = 777;
/** Contracts per machine: each machine gets a share of every trigger kind. */
const PER_MACHINE = 10;
/** Events posted to each event machine per tick-window: one every this many ms. */
const EVENT_EVERY_MS = 5_000;

async function call(url, method, p, { key, body } = {}) {
  const headers = { 'content-type': 'application/json' };
  if (key) headers.authorization = `Bearer ${key}`;
  const res = await fetch(`${url}${p}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const json = await res.json();
  if (!res.ok) throw new Error(`${method} ${p}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

function rssMiB(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
}

/** Server CPU time (user + system) in ms, from /proc: the bench's own work is not in it. */
function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

/**
 * The trigger of contract `i`: every contract of the `every` mix fires every tick; `mixed` cycles kinds
 * (`every` 1-5 ticks, `cron` each minute, `on_event`); `mixed-x<f>` is the same mix with every period
 * `f` times as long (`every` f-5f ticks, `cron` every f minutes, events every f × 5 s), so `f` times the
 * contracts fire at the rate of the plain mix: how the scheduler's cost grows with the contracts it
 * holds, apart from the fires it makes.
 */
function triggerOf(i, mix) {
  if (mix === 'every') return { kind: 'every', every_ticks: 1 };
  const f = stretchOf(mix);
  switch (i % 4) {
    case 0:
    case 1:
      return { kind: 'every', every_ticks: (1 + (i % 5)) * f };
    case 2:
      return { kind: 'cron', cron: f === 1 ? '* * * * *' : `*/${f} * * * *` };
    default:
      return { kind: 'on_event', event: 'bench.ping' };
  }
}

function stretchOf(mix) {
  const match = /^mixed(?:-x(\d+))?$/.exec(mix);
  if (!match) throw new Error(`unknown mix ${mix}: every, mixed or mixed-x<factor>`);
  return Number(match[1] ?? 1);
}

/** Minute ticks in [first, last] at which a `cron` contract of the mix is due. */
function cronTicks(firstTick, lastTick, mix) {
  const every = mix === 'every' ? 1 : stretchOf(mix);
  const out = [];
  for (let m = Math.ceil((firstTick * TICK_MS) / 60_000) * 60_000; Math.ceil(m / TICK_MS) <= lastTick; m += 60_000)
    if (new Date(m).getUTCMinutes() % every === 0) out.push(Math.ceil(m / TICK_MS));
  return out;
}

export async function contractsFireLag({ contracts = 1000, seconds = 60, mix = 'every', databaseUrl, settleTicks = 10 } = {}) {
  const dataDir = tempDataDir();
  const schema = `bench_contracts_${process.pid}_${Date.now()}`;
  const pg = databaseUrl ? { DATABASE_URL: databaseUrl, DATABASE_SCHEMA: schema } : {};
  const env = { CORE_DATA_DIR: dataDir, ...pg };
  const machines = mix === 'every' ? 1 : Math.ceil(contracts / PER_MACHINE);
  const eventEveryMs = EVENT_EVERY_MS * (mix === 'every' ? 1 : stretchOf(mix));
  const slugOf = (i) => (machines === 1 ? 'bench-contracts' : `bench-c-${Math.floor(i / PER_MACHINE)}`);
  const definitionOf = (i) => {
    const trigger = triggerOf(i, mix);
    return { name: `bench_${trigger.kind}`, states: { on: { initial: true } }, transitions: [{ from: 'on', to: 'on', operator: 'KO42', trigger }] };
  };
  const seedStarted = performance.now();
  const seeded = await seedContracts({ env, machines, contracts, slugOf, perMachine: PER_MACHINE, definitionOf, log: (m) => process.stderr.write(`${m}\n`) });
  const seedMs = performance.now() - seedStarted;
  const kinds = new Map(seeded.ids.map((id, i) => [id, triggerOf(i, mix)]));
  const startStarted = performance.now();
  // BENCH_SERVER_NODE_ARGS: node flags for the server (`--cpu-prof --cpu-prof-dir=/tmp/prof` to profile it).
  const nodeArgs = process.env.BENCH_SERVER_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const { child, match } = await startProcess([...nodeArgs, 'dist/src/cli.js', 'serve'], { PORT: '0', LOG_LEVEL: 'info', ...env }, /"url":"(http:[^"]+)"/);
  const startMs = performance.now() - startStarted;
  const url = match[1];
  // BENCH_SERVER_LOG=<file>: the server's log lines, to see what it said while fires lagged.
  if (process.env.BENCH_SERVER_LOG) {
    const log = createWriteStream(process.env.BENCH_SERVER_LOG);
    child.stdout.pipe(log);
    child.stderr.pipe(log);
  }
  let pgClient;
  try {
    const { key } = seeded;
    const eventSlugs = [...new Set([...Array(contracts).keys()].filter((i) => triggerOf(i, mix).kind === 'on_event').map(slugOf))];
    const listenersOf = new Map();
    for (let i = 0; i < contracts; i++) if (triggerOf(i, mix).kind === 'on_event') listenersOf.set(slugOf(i), (listenersOf.get(slugOf(i)) ?? 0) + 1);

    // The window opens `settleTicks` after the server listens (the seeded contracts' first fires, each
    // collapsing the ticks since it was seeded, come before it) and closes `seconds` later.
    const firstTick = Math.floor(Date.now() / TICK_MS) + settleTicks;
    const lastTick = firstTick + Math.floor((seconds * 1000) / TICK_MS) - 1;
    const rss = [];
    const sent = new Map();
    let eventRound = 0;
    const cpuStart = cpuMs(child.pid);
    const wallStart = Date.now();
    let nextEvents = firstTick * TICK_MS;
    let nextRss = Date.now() + 5000;
    while (Date.now() < (lastTick + 3) * TICK_MS) {
      const now = Date.now();
      if (eventSlugs.length > 0 && now >= nextEvents && now < lastTick * TICK_MS - eventEveryMs) {
        const round = eventRound++;
        nextEvents += eventEveryMs;
        await pool(eventSlugs.length, 10, async (e) => {
          const slug = eventSlugs[e];
          sent.set(`${slug}:${round}`, Date.now());
          await call(url, 'POST', `/api/chain/${slug}/event`, { key, body: { type: 'bench.ping', payload: { round } } });
        });
      }
      if (now >= nextRss) {
        rss.push(rssMiB(child.pid));
        nextRss += 5000;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    const serverCpuMs = cpuMs(child.pid) - cpuStart;
    const wallMs = Date.now() - wallStart;
    await stop(child);

    const read = databaseUrl ? await pgRows(databaseUrl, schema) : lowdbRows(dataDir);
    pgClient = read.client;
    const lags = { every: [], cron: [], on_event: [] };
    const covered = new Map();
    const phases = new Map();
    const bytes = { transition: 0, transitionRows: 0, audit: 0, auditRows: 0, payload: 0, payloadRows: 0 };
    let skipped = 0;
    let failed = 0;
    let fired = 0;
    const transitionIds = new Set();
    for await (const { stream, row: stored, size } of read.rows((s) => s.startsWith('contracts/') && s.endsWith('/transitions'))) {
      // Rows are stored without what their type, tick and position say (see `wholeTransition`).
      const row = { ...stored, contract_id: stored.contract_id ?? stored.type, id: stored.id ?? `${stored.type}:${stored.n}` };
      bytes.transition += size;
      bytes.transitionRows += 1;
      const trigger = kinds.get(row.contract_id);
      if (trigger === undefined) continue;
      if (trigger.kind === 'on_event') {
        const at = sent.get(`${slugOfRow(stream)}:${row.input?.round}`);
        if (at === undefined || !row.success) continue;
        fired += 1;
        transitionIds.add(row.id);
        lags.on_event.push(Date.parse(row.created_at) - at);
        covered.set(`event:${slugOfRow(stream)}:${row.input.round}`, (covered.get(`event:${slugOfRow(stream)}:${row.input.round}`) ?? 0) + 1);
        continue;
      }
      // A contract's phase on its `every` grid, from any of its scheduled rows: one whose only due tick in
      // a window shorter than its period lies outside it has none to be missed there.
      if (row.due_tick !== null && trigger.every_ticks !== undefined) phases.set(row.contract_id, row.due_tick % trigger.every_ticks);
      if (row.due_tick === null || row.due_tick < firstTick || row.due_tick > lastTick) continue;
      fired += 1;
      transitionIds.add(row.id);
      if (!row.success) failed += 1;
      skipped += row.skipped;
      lags[trigger.kind].push(Date.parse(row.created_at) - row.due_tick * TICK_MS);
      const c = covered.get(row.contract_id) ?? { ticks: new Set() };
      c.ticks.add(row.due_tick);
      covered.set(row.contract_id, c);
    }
    for await (const { row, size } of read.rows((s) => s.startsWith('chain/'))) {
      if (row.type === 'contract.transition' && transitionIds.has(row.transition_id)) {
        bytes.audit += size;
        bytes.auditRows += 1;
      }
    }
    for await (const { row, size } of read.rows((s) => s.startsWith('payloads/') || s.startsWith('chain-payloads/'))) {
      void row;
      bytes.payload += size;
      bytes.payloadRows += 1;
    }
    // What each contract should have fired in the window.
    const minuteTicks = cronTicks(firstTick, lastTick, mix);
    let expected = 0;
    let covers = 0;
    for (const [id, trigger] of kinds) {
      if (trigger.kind === 'on_event') continue;
      const c = covered.get(id);
      if (trigger.kind === 'cron') {
        expected += minuteTicks.length;
        covers += minuteTicks.filter((t) => c?.ticks.has(t)).length;
      } else {
        const every = trigger.every_ticks;
        const phase = phases.get(id);
        // Never fired at all: its grid is unknown, so every tick of it the window may hold counts (phase 0).
        for (let t = firstTick; t <= lastTick; t++) {
          if (t % every !== (phase ?? 0)) continue;
          expected += 1;
          if (c?.ticks.has(t)) covers += 1;
        }
      }
    }
    let eventsExpected = 0;
    let eventsCovered = 0;
    for (const k of sent.keys()) {
      const slug = k.slice(0, k.lastIndexOf(':'));
      eventsExpected += listenersOf.get(slug) ?? 0;
      eventsCovered += Math.min(listenersOf.get(slug) ?? 0, covered.get(`event:${k}`) ?? 0);
    }
    const all = [...lags.every, ...lags.cron];
    const summary = (xs) =>
      xs.length === 0
        ? null
        : {
            n: xs.length,
            p50: Math.round(percentile(xs, 50)),
            p99: Math.round(percentile(xs, 99)),
            max: Math.round(xs.reduce((a, b) => Math.max(a, b), -Infinity)),
          };
    const per = (n, rows) => (rows === 0 ? null : Math.round(n / rows));
    return {
      backend: databaseUrl ? 'postgres' : 'lowdb',
      contracts,
      machines,
      mix,
      window_s: seconds,
      window_ticks: lastTick - firstTick + 1,
      seed_contracts_s: +(seedMs / 1000).toFixed(1),
      server_start_s: +(startMs / 1000).toFixed(1),
      fires_expected: expected + eventsExpected,
      fires_made: fired,
      missed_fires: expected - covers + skipped + (eventsExpected - eventsCovered),
      failed_fires: failed,
      fire_lag_ms: summary(all),
      fire_lag_ms_by_kind: { every: summary(lags.every), cron: summary(lags.cron), on_event: summary(lags.on_event) },
      bytes_per_fire: {
        transition_row: per(bytes.transition, bytes.transitionRows),
        audit_row: per(bytes.audit, bytes.auditRows),
        payload_row: per(bytes.payload, bytes.payloadRows),
        store_total_per_fire: per(read.totalBytes(), bytes.transitionRows),
      },
      server_cpu_per_fire_us: bytes.transitionRows === 0 ? null : Math.round((serverCpuMs * 1000) / bytes.transitionRows),
      server_cpu_share: +(serverCpuMs / wallMs).toFixed(2),
      rss_mib: { min: Math.min(...rss), max: Math.max(...rss) },
    };
  } finally {
    if (child.exitCode === null) await stop(child);
    await pgClient?.end();
    // A 60 s run leaves hundreds of MB of logs behind.
    rmSync(dataDir, { recursive: true, force: true });
    if (databaseUrl) await dropSchema(databaseUrl, schema);
  }
}

/** The machine slug of a `contracts/<slug>/transitions` stream. */
function slugOfRow(stream) {
  return stream.slice('contracts/'.length, -'/transitions'.length);
}

/** Stream names from lowdb's file names (the inverse of its encoding: percent-escapes). */
function lowdbRows(dataDir) {
  const dir = path.join(dataDir, 'logs');
  const files = readdirSync(dir).filter((f) => f.endsWith('.jsonl'));
  return {
    totalBytes: () => files.reduce((n, f) => n + statSync(path.join(dir, f)).size, 0),
    async *rows(want) {
      for (const file of files) {
        const stream = decodeURIComponent(file.slice(0, -'.jsonl'.length));
        if (!want(stream)) continue;
        const lines = createInterface({ input: createReadStream(path.join(dir, file)), crlfDelay: Infinity });
        for await (const line of lines) if (line) yield { stream, row: JSON.parse(line), size: Buffer.byteLength(line) + 1 };
      }
    },
  };
}

/** The same rows from PostgreSQL, a page at a time per stream (a cursor would hold one transaction open). */
async function pgRows(url, schema) {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(`SET search_path TO "${schema}"`);
  const streams = (await client.query('SELECT DISTINCT stream FROM log_rows')).rows.map((r) => r.stream);
  const total = Number((await client.query(`SELECT pg_total_relation_size('log_rows') AS n`)).rows[0].n);
  return {
    client,
    totalBytes: () => total,
    async *rows(want) {
      for (const stream of streams) {
        if (!want(stream)) continue;
        let after = -1;
        for (;;) {
          const page = await client.query('SELECT seq, type, body::text AS text FROM log_rows WHERE stream = $1 AND seq > $2 ORDER BY seq LIMIT 5000', [
            stream,
            after,
          ]);
          for (const r of page.rows) yield { stream, row: { type: r.type, ...JSON.parse(r.text) }, size: Buffer.byteLength(r.text) };
          if (page.rows.length < 5000) break;
          after = Number(page.rows.at(-1).seq);
        }
      }
    },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.env.CORE_RATE_LIMIT ??= 'off';
  const [contracts, seconds, mix, settle] = process.argv.slice(2);
  console.log(
    JSON.stringify(
      await contractsFireLag({
        contracts: Number(contracts) || undefined,
        seconds: Number(seconds) || undefined,
        mix: mix || undefined,
        settleTicks: Number(settle) || undefined,
        databaseUrl: process.env.BENCH_DATABASE_URL,
      }),
      null,
      2,
    ),
  );
}
