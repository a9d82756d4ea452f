// Spine benchmarks: MCP stdio start-up to initialize, and a cheap read through the whole
// pipeline against a bare Express 5 app returning the same JSON, side by side in one run.
import { spawn } from 'node:child_process';
import { BENCH_ENV, load, percentile, root, startProcess, stop, tempDataDir } from './lib.mjs';

export async function mcpInitialize(runs = 15) {
  const times = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    const child = spawn(process.execPath, ['dist/src/cli.js', 'mcp'], {
      cwd: root,
      env: { ...process.env, ...BENCH_ENV, CORE_DATA_DIR: tempDataDir(), LOG_LEVEL: 'warn' },
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    const init = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
    };
    child.stdin.write(`${JSON.stringify(init)}\n`);
    await new Promise((resolve) => {
      let buf = '';
      child.stdout.on('data', (c) => {
        buf += c;
        if (buf.includes('"id":1')) resolve();
      });
    });
    times.push(performance.now() - started);
    child.stdin.end();
    await new Promise((resolve) => child.once('exit', resolve));
  }
  return { runs, median_ms: Math.round(percentile(times, 50)), p90_ms: Math.round(percentile(times, 90)), max_ms: Math.round(Math.max(...times)) };
}

export async function cheapRead({ duration = 10, connections = 50 } = {}) {
  const { child: core, match } = await startProcess(
    ['dist/src/cli.js', 'serve'],
    { PORT: '0', CORE_DATA_DIR: tempDataDir(), LOG_LEVEL: 'info' },
    /"url":"(http:[^"]+)"/,
  );
  const coreUrl = match[1];
  const sample = await (await fetch(`${coreUrl}/api/constants/h`)).text();
  const { child: bare, match: bareMatch } = await startProcess(['bench/bare-express.mjs'], { BENCH_BODY: sample }, /(http:\S+)/);
  const bareUrl = bareMatch[1];
  try {
    // Warm both up, then measure them one after the other, twice, in alternating order.
    await load(`${coreUrl}/api/constants/h`, { duration: 2, connections });
    await load(`${bareUrl}/api/constants/h`, { duration: 2, connections });
    const rounds = [];
    for (let i = 0; i < 2; i++) {
      const coreRun = await load(`${coreUrl}/api/constants/h`, { duration, connections });
      const bareRun = await load(`${bareUrl}/api/constants/h`, { duration, connections });
      rounds.push({ core: coreRun, bare: bareRun });
    }
    const core = rounds.map((r) => r.core.rps);
    const bareRps = rounds.map((r) => r.bare.rps);
    const best = (xs) => Math.max(...xs);
    return { rounds, ratio: +(best(core) / best(bareRps)).toFixed(3), body_bytes: sample.length };
  } finally {
    await stop(core);
    await stop(bare);
  }
}
