// `npm run bench`: the issue-9 table (every workload beside its baseline, measured in the same run),
// appended as a dated section to docs/benchmarks.md, against the built server (dist/).
//   node bench/run.mjs [--quick] [--only <workload,...>] [--out <file>] [--note "<conditions>"]
// Naming suites runs the older per-area suites instead and prints their JSON:
//   npm run bench -- tokens | spine | solvers | chain | sandbox | operators | contracts | storage | postgres
import os from 'node:os';
import path from 'node:path';
import { cheapRead, mcpInitialize } from './spine.mjs';
import { solverTimings, solveThroughput } from './solvers.mjs';
import { chainAppends } from './chain.mjs';
import { sandboxOverhead } from './sandbox.mjs';
import { operatorsBench } from './operators.mjs';
import { contractsFireLag } from './contracts.mjs';
import { storageAppends } from './storage.mjs';
import { listLatency } from './list-latency.mjs';
import { pgAppends, pgFireLag } from './postgres.mjs';
import { FULL, QUICK, runTable } from './table.mjs';
import { toolListTokens } from './tool-tokens.mjs';

// The benchmarks measure the server, not the per-key rate limit (docs/decisions.md): every server they start inherits this.
process.env.CORE_RATE_LIMIT ??= 'off';
// Nor the per-identity quotas: a benchmark creates far more machines, contracts and keys than a person.
process.env.CORE_QUOTAS ??= 'off';
import { renderSection, writeReport } from './report.mjs';
import { root } from './lib.mjs';

const suites = {
  tokens: () => toolListTokens(),
  chain: () => chainAppends(),
  async spine() {
    return { mcp_initialize: await mcpInitialize(), constants_read_vs_bare_express: await cheapRead() };
  },
  async solvers() {
    return { per_solver: await solverTimings(), http_solve: await solveThroughput() };
  },
  async sandbox() {
    return { print_1_api_vs_bare_spawn: await sandboxOverhead() };
  },
  operators: () => operatorsBench(),
  contracts: () => contractsFireLag(),
  storage: () => storageAppends(),
  // List and lookup p50 with 10,000 keys and machines stored; BENCH_DATABASE_URL: on PostgreSQL.
  lists: () => listLatency(),
  async postgres() {
    return {
      appends_one_process: await pgAppends({ processes: 1 }),
      appends_two_processes: await pgAppends({ processes: 2 }),
      fire_lag_two_processes: await pgFireLag(),
    };
  },
};

const args = process.argv.slice(2);
const flag = (name) => {
  const i = args.indexOf(name);
  return i === -1 ? undefined : args[i + 1];
};
const quick = args.includes('--quick');
const out = path.resolve(flag('--out') ?? path.join(root, 'docs/benchmarks.md'));
const note = flag('--note');
// `--only a,b`: just those workloads of the table (see bench/table.mjs); printed, and written only with --out.
const only = flag('--only')?.split(',');
const valued = new Set([flag('--out'), flag('--note'), flag('--only')]);
const wanted = args.filter((a) => !a.startsWith('-') && !valued.has(a));

if (wanted.length > 0) {
  const results = { machine: { cpus: os.cpus().length, cpu: os.cpus()[0]?.model, node: process.version, date: new Date().toISOString() } };
  for (const [name, run] of Object.entries(suites)) {
    if (!wanted.includes(name)) continue;
    process.stderr.write(`running ${name}...\n`);
    results[name] = await run();
  }
  process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
} else {
  const startedAt = new Date();
  const { rows, raw } = await runTable({ ...(quick ? QUICK : FULL), ...(only ? { only } : {}) });
  const command = `node bench/run.mjs${quick ? ' --quick' : ''}${only ? ` --only ${only.join(',')}` : ''}${flag('--out') ? ` --out ${flag('--out')}` : ''}${note ? ` --note "${note}"` : ''}`;
  if (!only || flag('--out')) writeReport(out, renderSection({ rows, quick, command, startedAt, note }));
  for (const r of rows)
    process.stderr.write(
      `${r.holds === false ? 'MISSED' : r.holds ? 'ok    ' : '      '} ${r.id}: ${r.figure} ${r.unit} (baseline ${r.baseline}, ratio ${r.ratio}; target ${r.target})\n`,
    );
  process.stdout.write(`${JSON.stringify({ quick, out, rows, raw }, null, 2)}\n`);
}
