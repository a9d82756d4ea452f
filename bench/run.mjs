// `npm run bench`: runs the benchmark suites against the built server (dist/) and prints JSON.
// Pass suite names to run only some: `npm run bench -- spine`.
import os from 'node:os';
import { cheapRead, mcpInitialize } from './spine.mjs';
import { solverTimings, solveThroughput } from './solvers.mjs';
import { chainAppends } from './chain.mjs';
import { sandboxOverhead } from './sandbox.mjs';
import { operatorsBench } from './operators.mjs';
import { contractsFireLag } from './contracts.mjs';
import { storageAppends } from './storage.mjs';

const suites = {
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
};

const wanted = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const results = {
  machine: { cpus: os.cpus().length, cpu: os.cpus()[0]?.model, node: process.version, date: new Date().toISOString() },
};
for (const [name, run] of Object.entries(suites)) {
  if (wanted.length > 0 && !wanted.includes(name)) continue;
  process.stderr.write(`running ${name}...\n`);
  results[name] = await run();
}
process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
