// The latency of a cheap read (`GET /api/health`) alone, and while a demo
// key runs each condition-cost attack beside it. Standalone, for a before/after on another build:
//   node bench/condition-cost.mjs [--cli /work/main/dist/src/cli.js] [--seconds 6]
import { pathToFileURL } from 'node:url';
import { callJson, percentile, startProcess, stop, tempDataDir } from './lib.mjs';

const list = (n) => Array.from({ length: n }, (_, i) => i);
const gate = (condition) => ({
  name: 'gate',
  states: { closed: { initial: true }, open: {} },
  transitions: [{ from: 'closed', to: 'open', operator: 'KO42', condition }],
});
/** Finding 2: one request whose condition scans a 150,000-character string 3,000 times. */
const FINDING_2 = { definition: gate('l.all(x, size(s) > 0)'), input: { l: list(3000), s: 'a'.repeat(150_000) } };
/** Finding 3: eight parallel in-budget (on the old code) simulations. */
const FINDING_3 = { definition: gate('l.all(x, s.startsWith("a") && size(s) > 0)'), input: { l: list(400), s: 'a'.repeat(100_000) } };

/** Sequential health reads for `ms`; their latencies. */
async function healthReads(url, ms) {
  const latencies = [];
  const end = performance.now() + ms;
  while (performance.now() < end) {
    const t = performance.now();
    await (await fetch(`${url}/api/health`)).arrayBuffer();
    latencies.push(performance.now() - t);
  }
  return latencies;
}

/** `parallel` loops of simulations with `body` until `signal`; counts answers by status. */
function attack(url, key, body, parallel, until) {
  const statuses = {};
  const payload = JSON.stringify(body);
  const loop = async () => {
    while (!until.done) {
      const res = await fetch(`${url}/api/contracts/simulate`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: payload,
      });
      await res.arrayBuffer();
      statuses[res.status] = (statuses[res.status] ?? 0) + 1;
    }
  };
  return { statuses, done: Promise.all(Array.from({ length: parallel }, loop)) };
}

const summary = (latencies) => ({
  reads: latencies.length,
  p50: +percentile(latencies, 50).toFixed(2),
  p99: +percentile(latencies, 99).toFixed(2),
  max: +Math.max(...latencies).toFixed(2),
});

/** Health latency alone, beside finding 2 and beside finding 3, on a fresh server of `cli`. */
export async function conditionCost({ cli = 'dist/src/cli.js', seconds = 6 } = {}) {
  const server = await startProcess([cli, 'serve'], { PORT: '0', CORE_DATA_DIR: tempDataDir(), LOG_LEVEL: 'info' }, /"url":"(http:[^"]+)"/);
  const url = server.match[1];
  try {
    await healthReads(url, 1000);
    const alone = summary(await healthReads(url, seconds * 1000));
    const out = { alone };
    for (const [name, body, parallel] of [
      ['finding_2', FINDING_2, 1],
      ['finding_3', FINDING_3, 8],
    ]) {
      // A fresh demo key each: the allowance of one attack does not carry into the next.
      process.stderr.write(`condition_cost: ${name}...\n`);
      const { key } = await callJson(url, 'POST', '/api/demo-key/mint', { body: {} });
      const until = { done: false };
      const running = attack(url, key, body, parallel, until);
      const beside = summary(await healthReads(url, seconds * 1000));
      until.done = true;
      await running.done;
      out[name] = { ...beside, attack_statuses: running.statuses };
    }
    return out;
  } finally {
    await stop(server.child);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const arg = (name) => {
    const i = process.argv.indexOf(name);
    return i === -1 ? undefined : process.argv[i + 1];
  };
  const result = await conditionCost({ cli: arg('--cli') ?? 'dist/src/cli.js', seconds: Number(arg('--seconds') ?? 6) });
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
}
