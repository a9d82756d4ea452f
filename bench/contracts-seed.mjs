// Seeds the contract benchmark's machines and contracts in-process, through the build's own services
// over the store the server will then open (the records are the ones `POST .../contracts` writes), so a
// run of 10,000 or 100,000 contracts does not spend its time creating them over HTTP while the first
// ones already fire. The seeding core's scheduler is stopped at once: nothing fires before `serve`.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { BENCH_ENV, pool, root, seedingStore } from './lib.mjs';

const CONCURRENCY = 32;

/**
 * Mints one demo key, creates `machines` machines (`slugOf(m * perMachine)`) and `contracts` contracts
 * (`definitionOf(i)` on `slugOf(i)`); returns the key and each contract's id by index. `env` is the
 * server's (data dir or PostgreSQL schema).
 */
export async function seedContracts({ env, machines, contracts, slugOf, perMachine, definitionOf, log = () => {} }) {
  const dist = (p) => pathToFileURL(path.join(root, 'dist/src', p)).href;
  const { createCore } = await import(dist('compose.js'));
  const { loadConfig } = await import(dist('config.js'));
  const config = loadConfig({ ...process.env, ...BENCH_ENV, LOG_LEVEL: 'silent', ...env });
  const core = await createCore({ config, store: await seedingStore(dist, config) });
  const ids = [];
  try {
    await core.services.contracts.scheduler.stop();
    const { key } = await core.services.identity.mintDemoKey();
    const caller = await core.services.identity.resolveKey(key);
    await pool(machines, CONCURRENCY, (m) => core.services.machines.create({ slug: slugOf(m * perMachine) }, caller));
    log(`seeded ${machines} machines`);
    await pool(contracts, CONCURRENCY, async (i) => {
      const { contract } = await core.services.contracts.crud.create(slugOf(i), caller, { definition: definitionOf(i) });
      ids[i] = contract.id;
      if ((i + 1) % 10_000 === 0) log(`seeded ${i + 1} contracts`);
    });
    return { key, ids };
  } finally {
    await core.close();
  }
}
