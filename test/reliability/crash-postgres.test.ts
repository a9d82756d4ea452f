import { describe, expect, it } from 'vitest';
import { createPostgresStore } from '../../src/storage/postgres/postgres.store.js';
import type { Store } from '../../src/storage/port.js';
import { tempDir } from '../helpers/server.js';
import { databaseUrl, dropSchema, SKIP_REASON, uniqueSchema } from '../store/postgres-harness.js';
import { runCrashLoop } from './crash-loop.js';

/** kill -9 under write load, on PostgreSQL (`npm run test:pg`); the lowdb run is `crash.test.ts`. */
if (databaseUrl === undefined) console.warn(`crash-postgres: ${SKIP_REASON}`);

describe.skipIf(databaseUrl === undefined)('crash safety on PostgreSQL', () => {
  it('loses no acknowledged write, keeps every chain valid and fires no tick twice across 20 kill -9 restarts', async () => {
    const url = databaseUrl!;
    const schema = uniqueSchema('crash');
    const { dir, cleanup } = await tempDir('core-crash-pg-');
    try {
      const result = await runCrashLoop({
        name: 'postgres',
        env: { CORE_DATA_DIR: dir, DATABASE_URL: url, DATABASE_SCHEMA: schema },
        openStore: async (): Promise<Store> => {
          const store = createPostgresStore({ connectionString: url, schema });
          await store.open();
          return store;
        },
      });
      console.info(`crash (postgres): ${JSON.stringify(result)}`);
      expect(result.kills).toBeGreaterThanOrEqual(20);
    } finally {
      await dropSchema(schema);
      await cleanup();
    }
  });
});
