// `npm run bench`: runs the benchmark suites against the built server (dist/) and prints JSON.
// Pass suite names to run only some: `npm run bench -- spine`.
import os from 'node:os';
import { cheapRead, mcpInitialize } from './spine.mjs';

const suites = {
  async spine() {
    return { mcp_initialize: await mcpInitialize(), constants_read_vs_bare_express: await cheapRead() };
  },
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
