import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { describe, expect, it, onTestFinished } from 'vitest';
import { migrate, MIGRATIONS, type Migration } from '../../src/storage/postgres/migrations.js';
import { createPostgresStore } from '../../src/storage/postgres/postgres.store.js';
import { tablesIn } from '../../src/storage/postgres/sql.js';
import { startServerOn } from '../helpers/durable-server.js';
import { createMachine, mintKey, tempDir } from '../helpers/server.js';
import { databaseUrl, dropSchema, SKIP_REASON, uniqueSchema } from '../store/postgres-harness.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const KNOWN = MIGRATIONS.at(-1)!.version;

/** A migration of a build newer than this one: it adds a column, and declares which older builds may still write. */
function future(writableFrom?: number): Migration {
  return {
    version: KNOWN + 1,
    name: 'from a newer build',
    sql: (t) => `ALTER TABLE ${t.docs} ADD COLUMN IF NOT EXISTS from_the_future text`,
    ...(writableFrom === undefined ? {} : { writableFrom }),
  };
}

/** A pool of its own on the shared database, ended with the test. */
function rawPool(): pg.Pool {
  const pool = new pg.Pool({ connectionString: databaseUrl!, max: 2 });
  onTestFinished(() => pool.end());
  return pool;
}

/** A fresh schema, dropped after the test. */
function schemaForTest(prefix: string): string {
  const schema = uniqueSchema(prefix);
  onTestFinished(() => dropSchema(schema));
  return schema;
}

/** Runs `core-server serve` on the schema; resolves with how it ended when it exits before listening, or 'listening'. */
function startBuilt(schema: string, dir: string): Promise<{ code: number | null; stderr: string } | 'listening'> {
  const child = spawn(process.execPath, ['dist/src/cli.js', 'serve'], {
    cwd: root,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', CORE_DATA_DIR: dir, DATABASE_URL: databaseUrl!, DATABASE_SCHEMA: schema },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (/"msg":"listening"/.test(stderr)) {
        clearTimeout(timer);
        child.kill('SIGKILL');
        resolve('listening');
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

if (databaseUrl === undefined) console.warn(SKIP_REASON);

describe.skipIf(databaseUrl === undefined)('rolling upgrades on PostgreSQL: an older server on a schema a newer one migrated', () => {
  it('refuses to start, in one line saying why and what to do, when the newer migration does not let older servers write', async () => {
    const schema = schemaForTest('upgrade_refuse');
    const pool = rawPool();
    // The newer build migrates the schema; its migration declares nothing, so only builds that know it may write.
    expect(await migrate(pool, tablesIn(schema), [...MIGRATIONS, future()])).toContain(KNOWN + 1);

    const store = createPostgresStore({ connectionString: databaseUrl!, schema });
    const refusal = store.open();
    await expect(refusal).rejects.toThrow(
      new RegExp(`version ${KNOWN + 1}, newer than this server knows \\(${KNOWN}\\).*know version ${KNOWN + 1} or later.*finish the upgrade`),
    );
    expect(store.isOpen()).toBe(false);

    // The built server refuses to start: exit 1 and one line on stderr that says it.
    const { dir, cleanup } = await tempDir('core-upgrade-');
    onTestFinished(cleanup);
    const started = await startBuilt(schema, dir);
    expect(started).not.toBe('listening');
    const { code, stderr } = started as { code: number | null; stderr: string };
    expect(code).toBe(1);
    const fatal = stderr.split('\n').filter((line) => line.includes('finish the upgrade'));
    expect(fatal).toHaveLength(1);
    expect(JSON.parse(fatal[0]!)).toMatchObject({ level: 'error', msg: 'fatal' });
    // Nothing was applied or changed by the refused server.
    const { rows } = await pool.query<{ version: number }>(`SELECT max(version) AS version FROM "${schema}".schema_version`);
    expect(rows[0]!.version).toBe(KNOWN + 1);
  });

  it('starts and keeps its promises (acknowledged writes, a valid chain) when the newer migration declares it may still write', async () => {
    const schema = schemaForTest('upgrade_compat');
    const pool = rawPool();
    await migrate(pool, tablesIn(schema), [...MIGRATIONS, future(KNOWN)]);

    const { dir, cleanup } = await tempDir('core-upgrade-');
    onTestFinished(cleanup);
    const older = await startServerOn(dir, { DATABASE_URL: databaseUrl!, DATABASE_SCHEMA: schema });
    onTestFinished(() => older.stop(1000));
    const { key } = await mintKey(older);
    await createMachine(older, key, { slug: 'rolled' });
    for (let i = 0; i < 5; i++) expect((await older.call('POST', '/api/chain/rolled/event', { key, body: { type: 'x', payload: { i } } })).status).toBe(200);
    const validation = await older.call('GET', '/api/chain/rolled/pohc/validate', { key });
    expect(validation.body).toMatchObject({ valid: true });
    expect(validation.body.count).toBeGreaterThanOrEqual(5);

    // The newer build's process on the same schema sees the older one's writes; the schema was left as the newer build made it.
    expect(await migrate(pool, tablesIn(schema), [...MIGRATIONS, future(KNOWN)])).toEqual([]);
    const { rows } = await pool.query<{ version: number; writable_from: number }>(
      `SELECT version, writable_from FROM "${schema}".schema_version ORDER BY version DESC LIMIT 1`,
    );
    expect(rows[0]).toEqual({ version: KNOWN + 1, writable_from: KNOWN });
  });

  it('reads the rule from the database: an older build (fewer migrations) runs beside this one only as far as the migrations it lacks allow', async () => {
    const schema = schemaForTest('upgrade_older');
    const pool = rawPool();
    const t = tablesIn(schema);
    await migrate(pool, t);
    // A build two migrations older than this one: this build's migrations declare it may still write.
    expect(await migrate(pool, t, MIGRATIONS.slice(0, -2))).toEqual([]);
    // Rows a pre-compatibility build wrote carry no rule: a build that does not know them must assume the worst.
    await pool.query(`UPDATE "${schema}".schema_version SET writable_from = NULL WHERE version = $1`, [KNOWN]);
    await expect(migrate(pool, t, MIGRATIONS.slice(0, -1))).rejects.toThrow(/finish the upgrade/);
    // ... while a build that knows them records its own declaration, which older builds then read.
    expect(await migrate(pool, t)).toEqual([]);
    expect(await migrate(pool, t, MIGRATIONS.slice(0, -1))).toEqual([]);
    // A newer migration that lets builds from KNOWN - 1 write: the build one older runs, two older refuses.
    await migrate(pool, t, [...MIGRATIONS, future(KNOWN - 1)]);
    expect(await migrate(pool, t, MIGRATIONS.slice(0, -1))).toEqual([]);
    await expect(migrate(pool, t, MIGRATIONS.slice(0, -2))).rejects.toThrow(
      new RegExp(`newer than this server knows \\(${KNOWN - 2}\\).*know version ${KNOWN - 1} or later`),
    );
  });
});
