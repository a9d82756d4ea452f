// Sandbox benchmark: `print(1)` through `POST /api/agent/{uid}/sandbox/run` (HTTP, auth,
// quota check, bwrap + prlimit + the bootstrap, the run row written) against a bare spawn of the same
// interpreter, `/usr/bin/python3 -c 'print(1)'`, measured one after the other in alternating rounds.
import { spawn } from 'node:child_process';
import { percentile, startProcess, stop, tempDataDir } from './lib.mjs';

const PYTHON = '/usr/bin/python3';

function bareRun() {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(PYTHON, ['-c', 'print(1)'], { stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.once('error', reject);
    child.once('close', (code) => (code === 0 && out === '1\n' ? resolve(performance.now() - started) : reject(new Error(`bare run: ${code} ${out}`))));
  });
}

export async function sandboxOverhead({ runs = 40, rounds = 2, cli = 'dist/src/cli.js' } = {}) {
  const { child: core, match } = await startProcess([cli, 'serve'], { PORT: '0', CORE_DATA_DIR: tempDataDir(), LOG_LEVEL: 'info' }, /"url":"(http:[^"]+)"/);
  const url = match[1];
  // The quota allows 20 runs a day per agent, so the runs are spread over fresh agents.
  let agent;
  let used = 20;
  const apiRun = async () => {
    if (used === 20) {
      agent = await (await fetch(`${url}/api/demo-key/mint`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).json();
      used = 0;
    }
    used++;
    const started = performance.now();
    const res = await fetch(`${url}/api/agent/${agent.uid}/sandbox/run`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${agent.key}` },
      body: JSON.stringify({ code: 'print(1)', timeout_ms: 5000 }),
    });
    const body = await res.json();
    const ms = performance.now() - started;
    if (res.status !== 200 || body.stdout !== '1\n') throw new Error(`api run: ${res.status} ${JSON.stringify(body)}`);
    return { ms, duration_ms: body.duration_ms };
  };
  try {
    for (let i = 0; i < 3; i++) {
      await bareRun();
      await apiRun();
    }
    const api = [];
    const inner = [];
    const bare = [];
    for (let r = 0; r < rounds; r++) {
      for (let i = 0; i < runs / rounds; i++) {
        const a = await apiRun();
        api.push(a.ms);
        inner.push(a.duration_ms);
        bare.push(await bareRun());
      }
    }
    const med = (xs) => +percentile(xs, 50).toFixed(1);
    return {
      runs,
      api_median_ms: med(api),
      api_p90_ms: +percentile(api, 90).toFixed(1),
      sandbox_spawn_median_ms: med(inner),
      bare_median_ms: med(bare),
      bare_p90_ms: +percentile(bare, 90).toFixed(1),
      ratio: +(percentile(api, 50) / percentile(bare, 50)).toFixed(2),
    };
  } finally {
    await stop(core);
  }
}
