// Where one `POST /api/chain/{slug}/event` spends the server's CPU, for profiling the write path.
//   node bench/profile-append.mjs [--pg] [--seconds 10] [--connections 50] [--prof]
// Prints requests/s, server CPU per append (from /proc: user+system ticks, not wall time) and, with
// --prof, the top self-time entries of a V8 CPU profile grouped by function and by package.
import { readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { load, startProcess, stop, tempDataDir } from './lib.mjs';

const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(name);
  return i === -1 ? fallback : Number(args[i + 1]);
};
const pg = args.includes('--pg');
const prof = args.includes('--prof');
const seconds = opt('--seconds', 10);
const connections = opt('--connections', 50);
const pgUrl = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
const schema = `prof_${process.pid}`;
const dataDir = tempDataDir();
const profDir = path.join(dataDir, 'prof');

const cpuTicks = (pid) => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return Number(f[11]) + Number(f[12]);
};

const env = { PORT: '0', CORE_DATA_DIR: dataDir, LOG_LEVEL: 'info', ...(pg ? { DATABASE_URL: pgUrl, DATABASE_SCHEMA: schema } : {}) };
const nodeArgs = [...(prof ? ['--cpu-prof', '--cpu-prof-dir', profDir] : []), ...(process.env.PROFILE_NODE_ARGS?.split(' ').filter(Boolean) ?? [])];
const { child, match } = await startProcess([...nodeArgs, 'dist/src/cli.js', 'serve'], env, /"url":"(http:[^"]+)"/);
const url = match[1];
const post = (p, body, key) =>
  fetch(`${url}${p}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
    body: JSON.stringify(body),
  }).then((r) => r.json());
try {
  const { key } = await post('/api/demo-key/mint', {});
  await post('/api/chain/state-machines', { slug: 'prof' }, key);
  const options = {
    connections,
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ type: 'bench', payload: { sensor: 'a1', value: 21.5, unit: 'C' } }),
  };
  await load(`${url}/api/chain/prof/event`, { ...options, duration: 3 });
  if (process.env.PROFILE_NODE_ARGS) child.kill('SIGUSR2');
  const t0 = cpuTicks(child.pid);
  const r = await load(`${url}/api/chain/prof/event`, { ...options, duration: seconds });
  const ticks = cpuTicks(child.pid) - t0;
  if (process.env.PROFILE_NODE_ARGS) child.kill('SIGUSR2');
  const appends = r.rps * seconds;
  console.log(
    JSON.stringify({
      backend: pg ? 'postgres' : 'lowdb',
      rows_per_s: r.rps,
      p99_ms: r.p99,
      errors: r.errors,
      server_cpu_us_per_append: Math.round((ticks * 10_000) / appends),
    }),
  );
} finally {
  await stop(child);
}

if (prof) {
  const file = readdirSync(profDir).find((f) => f.endsWith('.cpuprofile'));
  const raw = readFileSync(path.join(profDir, file), 'utf8');
  writeFileSync('/tmp/last.cpuprofile', raw);
  const profile = JSON.parse(raw);
  const dt = new Map();
  for (let i = 0; i < profile.samples.length; i++) dt.set(profile.samples[i], (dt.get(profile.samples[i]) ?? 0) + (profile.timeDeltas[i] ?? 0));
  const total = [...dt.values()].reduce((a, b) => a + b, 0);
  const byFn = new Map();
  const byPkg = new Map();
  for (const node of profile.nodes) {
    const t = dt.get(node.id) ?? 0;
    if (!t) continue;
    const { functionName, url: u, lineNumber } = node.callFrame;
    const short = u
      .replace(/^.*node_modules\//, 'nm:')
      .replace(/^.*\/dist\/src\//, 'src:')
      .replace(/^node:/, 'node:');
    const fnKey = `${functionName || '(anon)'} ${short}:${lineNumber + 1}`;
    byFn.set(fnKey, (byFn.get(fnKey) ?? 0) + t);
    const pkg = u.startsWith('node:')
      ? u.split('/').slice(0, 2).join('/')
      : u.includes('node_modules/')
        ? `nm:${u.split('node_modules/')[1].split('/')[0]}`
        : u.includes('/dist/src/')
          ? `src:${u.split('/dist/src/')[1].split('/').slice(0, 2).join('/')}`
          : functionName;
    byPkg.set(pkg, (byPkg.get(pkg) ?? 0) + t);
  }
  const top = (m, n) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([k, t]) => `${((100 * t) / total).toFixed(1).padStart(5)}%  ${k}`)
      .join('\n');
  console.log(`\nby package/area:\n${top(byPkg, 30)}\n\nby function:\n${top(byFn, 45)}`);
}
rmSync(dataDir, { recursive: true, force: true });
if (pg) {
  const { default: pgm } = await import('pg');
  const c = new pgm.Client({ connectionString: pgUrl });
  await c.connect();
  await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await c.end();
}
