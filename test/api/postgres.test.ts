import { describe, expect, it, onTestFinished } from 'vitest';
import { startServerOn, type DirServer } from '../helpers/durable-server.js';
import { createMachine, mintKey, tempDir } from '../helpers/server.js';
import { databaseUrl, dropSchema, SKIP_REASON, uniqueSchema } from '../store/postgres-harness.js';

/** Servers on one PostgreSQL schema (as processes sharing a database would be), stopped and dropped after the test. */
async function onSharedSchema() {
  const schema = uniqueSchema();
  const servers: DirServer[] = [];
  const cleanups: Array<() => Promise<void>> = [];
  onTestFinished(async () => {
    await Promise.all(servers.map((s) => s.stop(1000)));
    await dropSchema(schema);
    await Promise.all(cleanups.map((c) => c()));
  });
  return {
    async start(): Promise<DirServer> {
      const { dir, cleanup } = await tempDir();
      cleanups.push(cleanup);
      const server = await startServerOn(dir, { DATABASE_URL: databaseUrl!, DATABASE_SCHEMA: schema });
      servers.push(server);
      return server;
    },
    async stop(server: DirServer): Promise<void> {
      servers.splice(servers.indexOf(server), 1);
      await server.stop(1000);
    },
  };
}

async function ownerWithMachine(server: DirServer, slug: string): Promise<string> {
  const { key } = await mintKey(server);
  await createMachine(server, key, { slug });
  return key;
}

if (databaseUrl === undefined) console.warn(SKIP_REASON);

describe.skipIf(databaseUrl === undefined)('the server on PostgreSQL', () => {
  it('reports the postgres backend and keeps machines, keys and chains across a restart', async () => {
    const db = await onSharedSchema();
    const first = await db.start();
    expect((await first.call('GET', '/api/status')).body).toMatchObject({ backend: 'postgres' });
    const key = await ownerWithMachine(first, 'pg-restart');
    for (let n = 0; n < 3; n++) expect((await first.call('POST', '/api/chain/pg-restart/event', { key, body: { type: 'x' } })).status).toBe(200);
    await db.stop(first);
    const second = await db.start();
    expect((await second.call('GET', '/api/chain/pg-restart/state', { key })).body).toMatchObject({ row_count: 4, head_seq: 3 });
    expect((await second.call('GET', '/api/chain/pg-restart/pohc/validate', { key })).body).toMatchObject({ valid: true, count: 4 });
  });

  it('keeps a machine chain valid when two servers on one database take appends for it at once', async () => {
    const db = await onSharedSchema();
    const [a, b] = await Promise.all([db.start(), db.start()]);
    const key = await ownerWithMachine(a!, 'pg-shared');
    const writes = await Promise.all(
      Array.from({ length: 60 }, (_, n) => (n % 2 === 0 ? a! : b!).call('POST', '/api/chain/pg-shared/event', { key, body: { type: 'x', payload: { n } } })),
    );
    expect(writes.map((w) => w.status)).toEqual(Array.from({ length: 60 }, () => 200));
    for (const server of [a!, b!]) {
      expect((await server.call('GET', '/api/chain/pg-shared/state', { key })).body).toMatchObject({ row_count: 61, head_seq: 60 });
      expect((await server.call('GET', '/api/chain/pg-shared/pohc/validate', { key })).body).toMatchObject({ valid: true, count: 61 });
    }
  });
});
