import { describe, expect, it, onTestFinished } from 'vitest';
import { createChainLogRepository } from '../../src/domain/chain/chain-log-repository.js';
import { createMachineRepository } from '../../src/domain/chain/machine-repository.js';
import { migrateFromLowdb, runMigrate } from '../../src/migrate-lowdb.js';
import { createPostgresStore } from '../../src/storage/postgres/postgres.store.js';
import { startServerOn } from '../helpers/durable-server.js';
import { createMachine, mintKey, tempDir } from '../helpers/server.js';
import { databaseUrl, dropSchema, SKIP_REASON, uniqueSchema } from '../store/postgres-harness.js';

if (databaseUrl === undefined) console.warn(SKIP_REASON);

describe.skipIf(databaseUrl === undefined)('core-server migrate --from-lowdb', () => {
  it('copies documents and logs with their seqs, verifies every chain, and serves them from PostgreSQL', async () => {
    const { dir, cleanup } = await tempDir();
    const schema = uniqueSchema('migrate');
    onTestFinished(async () => {
      await dropSchema(schema);
      await cleanup();
    });
    const embedded = await startServerOn(dir);
    const { key } = await mintKey(embedded);
    await createMachine(embedded, key, { slug: 'moved' });
    for (let i = 0; i < 5; i++) expect((await embedded.call('POST', '/api/chain/moved/event', { key, body: { type: 'x', payload: { i } } })).status).toBe(200);
    const before = await createChainLogRepository(embedded.core.store).read('moved');
    await embedded.stop(1000);

    const lines: string[] = [];
    const code = await runMigrate(['--from-lowdb', dir], { DATABASE_URL: databaseUrl!, DATABASE_SCHEMA: schema }, (t) => lines.push(t));
    expect(code, lines.join('')).toBe(0);
    expect(lines.join('')).toMatch(/verified \d+ chains: all valid/);

    const target = createPostgresStore({ connectionString: databaseUrl!, schema });
    await target.open();
    try {
      expect(await createChainLogRepository(target).read('moved')).toEqual(before);
      expect(await createMachineRepository(target).get('moved')).toMatchObject({ slug: 'moved' });
      await expect(migrateFromLowdb(dir, target)).rejects.toThrow(/already holds data/);
    } finally {
      await target.close();
    }

    const served = await startServerOn(dir, { DATABASE_URL: databaseUrl!, DATABASE_SCHEMA: schema });
    try {
      const read = await served.call('GET', '/api/chain/moved/explore', { key });
      expect(read.status).toBe(200);
      expect((await served.call('POST', '/api/chain/moved/event', { key, body: { type: 'after' } })).status).toBe(200);
    } finally {
      await served.stop(1000);
    }
  });

  it('refuses without --from-lowdb DIR or DATABASE_URL', async () => {
    const out: string[] = [];
    expect(await runMigrate([], { DATABASE_URL: databaseUrl! }, (t) => out.push(t))).toBe(1);
    expect(await runMigrate(['--from-lowdb', '/nowhere'], {}, (t) => out.push(t))).toBe(1);
    expect(out.join('')).toMatch(/give --from-lowdb DIR[\s\S]*set DATABASE_URL/);
  });
});
