import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createChainLogRepository } from '../../src/domain/chain/chain-log-repository.js';
import { genesisSeed, verifyChain } from '../../src/domain/chain/hash-chain.js';
import { createMachineRepository } from '../../src/domain/chain/machine-repository.js';
import { createPostgresStore } from '../../src/storage/postgres/postgres.store.js';
import { startServerOn } from '../helpers/durable-server.js';
import { mintKey, tempDir } from '../helpers/server.js';
import { databaseUrl, dropSchema, SKIP_REASON, uniqueSchema } from '../store/postgres-harness.js';

const run = promisify(execFile);
const MACHINES = ['pgb-a', 'pgb-b'];

/** The shared cluster's URL with another database name. */
function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl! });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

if (databaseUrl === undefined) console.warn(SKIP_REASON);

describe.skipIf(databaseUrl === undefined)('PostgreSQL backup: pg_dump -n SCHEMA under write load, pg_restore into a new database', () => {
  it('restores every write acknowledged before the dump started, and every chain verifies', async () => {
    const schema = uniqueSchema('backup');
    const { dir, cleanup } = await tempDir('core-pg-backup-');
    // A database of our own to restore into (never the shared `test` database).
    const restoreDb = `ops_restore_${randomBytes(5).toString('hex')}`;
    onTestFinished(async () => {
      await admin(`DROP DATABASE IF EXISTS ${restoreDb} WITH (FORCE)`);
      await dropSchema(schema);
      await cleanup();
    });
    // Rate limit off: the appenders go as fast as the machine lets them, and a 429 must not end the load early.
    const served = await startServerOn(dir, { DATABASE_URL: databaseUrl!, DATABASE_SCHEMA: schema, CORE_RATE_LIMIT: 'off' });
    onTestFinished(() => served.stop(1000));
    const { key } = await mintKey(served);
    for (const slug of MACHINES) expect((await served.call('POST', '/api/chain/state-machines', { key, body: { slug } })).status).toBe(200);

    const acked = new Map<string, Map<number, string>>(MACHINES.map((slug) => [slug, new Map()]));
    let total = 0;
    let stop = false;
    const waiters: Array<{ n: number; done: () => void }> = [];
    const appenders = MACHINES.flatMap((slug) =>
      Array.from({ length: 4 }, async (_, w) => {
        for (let i = 0; !stop; i++) {
          const res = await served.call('POST', `/api/chain/${slug}/event`, { key, body: { type: 'load', payload: { w, i } } });
          expect(res.status).toBe(200);
          acked.get(slug)!.set(res.body.seq as number, res.body.state_hash as string);
          total++;
          for (const waiter of waiters.splice(0)) {
            if (total >= waiter.n) waiter.done();
            else waiters.push(waiter);
          }
        }
      }),
    );
    const ackedAtLeast = (n: number) => new Promise<void>((resolve) => (total >= n ? resolve() : waiters.push({ n, done: resolve })));

    await ackedAtLeast(200);
    const before = new Map([...acked].map(([slug, rows]) => [slug, new Map(rows)]));
    const file = join(dir, 'schema.dump');
    // One snapshot for the whole dump: what it holds is the schema at one moment, writes going on meanwhile.
    await run('pg_dump', ['--format=custom', `--schema=${schema}`, `--file=${file}`, databaseUrl!]);
    const afterDump = total;
    await ackedAtLeast(afterDump + 50);
    stop = true;
    await Promise.all(appenders);

    await admin(`CREATE DATABASE ${restoreDb}`);
    const restoreUrl = withDatabase(databaseUrl!, restoreDb);
    await run('pg_restore', ['--no-owner', `--dbname=${restoreUrl}`, file]);

    // Every chain of the restored schema, walked from its genesis seed; every acknowledged-before row there.
    const restored = createPostgresStore({ connectionString: restoreUrl, schema });
    await restored.open();
    try {
      const chains = createChainLogRepository(restored);
      let machines = 0;
      for await (const machine of createMachineRepository(restored).each()) {
        const rows = await chains.read(machine.slug);
        expect(verifyChain(rows, genesisSeed(machine.slug, machine.genesis_tick)), machine.slug).toMatchObject({ valid: true });
        machines++;
      }
      expect(machines).toBe(MACHINES.length);
      for (const slug of MACHINES) {
        const rows = new Map((await chains.read(slug)).map((r) => [r.seq, r.state_hash]));
        for (const [seq, hash] of before.get(slug)!) expect(rows.get(seq), `${slug} seq ${seq}`).toBe(hash);
        for (const [seq, hash] of rows) if (acked.get(slug)!.has(seq)) expect(acked.get(slug)!.get(seq)).toBe(hash);
      }
    } finally {
      await restored.close();
    }

    // A server on the restored database answers with valid chains and writes on.
    const { dir: dir2, cleanup: cleanup2 } = await tempDir('core-pg-restored-');
    onTestFinished(cleanup2);
    const second = await startServerOn(dir2, { DATABASE_URL: restoreUrl, DATABASE_SCHEMA: schema });
    try {
      for (const slug of MACHINES) expect((await second.call('GET', `/api/chain/${slug}/pohc/validate`, { key })).body).toMatchObject({ valid: true });
      expect((await second.call('POST', `/api/chain/${MACHINES[0]}/event`, { key, body: { type: 'after-restore' } })).status).toBe(200);
    } finally {
      await second.stop(1000);
    }
    console.info(`pg backup under load: ${[...before.values()].reduce((n, m) => n + m.size, 0)} rows acknowledged before pg_dump, ${total} by the end`);
  });
});
