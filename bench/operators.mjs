// Operator registry benchmark: registry load time, search latency in-process and over HTTP,
// and the throughput of `POST /api/compute` with one operator.
import { load, percentile, startProcess, stop, tempDataDir } from './lib.mjs';

const dist = (p) => new URL(`../dist/src/${p}`, import.meta.url).href;

const QUERIES = [
  { q: 'energy' },
  { q: 'newton second law' },
  { q: 'NM19' },
  { category: 'aerospace' },
  { q: 'black scholes' },
  { q: 'pressure', limit: 100 },
  {},
  { q: 'qwertyuiop' },
  { id: 'NM19,KO42' },
  { q: 'e' },
];

/** Loads the registry `runs` times (the files stay in the page cache after the first) and searches 20,000 times. */
async function inProcess(runs = 10) {
  const { createOperatorsService } = await import(dist('domain/operators/operators.service.js'));
  const { createClock } = await import(dist('lib/clock.js'));
  const loads = [];
  let service;
  for (let i = 0; i < runs; i++) {
    service = createOperatorsService({ clock: createClock() });
    loads.push(service.stats.loadMs);
  }
  const times = [];
  for (let i = 0; i < 20_000; i++) {
    const started = performance.now();
    service.list({ limit: 50, ...QUERIES[i % QUERIES.length] });
    times.push(performance.now() - started);
  }
  const versionStarted = performance.now();
  service.registryVersion();
  return {
    operators: service.stats.count,
    load_ms: { first: round(loads[0]), median: round(percentile(loads, 50)) },
    registry_version_ms: round(performance.now() - versionStarted),
    search_ms: { p50: round(percentile(times, 50), 3), p99: round(percentile(times, 99), 3), max: round(Math.max(...times), 3) },
  };
}

async function overHttp() {
  const { child, match } = await startProcess(
    ['dist/src/cli.js', 'serve'],
    { PORT: '0', CORE_DATA_DIR: tempDataDir(), LOG_LEVEL: 'info' },
    /"url":"(http:[^"]+)"/,
  );
  const url = match[1];
  try {
    const body = JSON.stringify({ operators: ['NM19'], inputs: { m: 2, a: 9.81 } });
    const headers = { 'content-type': 'application/json' };
    await fetch(`${url}/api/compute`, { method: 'POST', headers, body }); // imports mathjs
    await load(`${url}/api/operators?q=pressure`, { duration: 2 });
    const search = await load(`${url}/api/operators?q=pressure`, { duration: 10 });
    const searchAlone = await load(`${url}/api/operators?q=pressure`, { duration: 5, connections: 1 });
    await load(`${url}/api/compute`, { method: 'POST', headers, body, duration: 2 });
    const compute = await load(`${url}/api/compute`, { method: 'POST', headers, body, duration: 10 });
    return { search_q_pressure_50_connections: search, search_q_pressure_1_connection: searchAlone, compute_one_operator: compute };
  } finally {
    await stop(child);
  }
}

export async function operatorsBench() {
  return { in_process: await inProcess(), http: await overHttp() };
}

function round(n, digits = 1) {
  return Number(n.toFixed(digits));
}
