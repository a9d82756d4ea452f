import { cp, rm } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { createLowdbStore } from '../../src/storage/lowdb/lowdb.store.js';
import type { Store } from '../../src/storage/port.js';
import { tempDir } from '../helpers/server.js';
import { runCrashLoop } from './crash-loop.js';

/**
 * kill -9 under write load, on the lowdb store (the PostgreSQL run is `crash-postgres.test.ts`).
 * CRASH_SEED and CRASH_KILLS override the fixed seed and the number of kills.
 */
describe('crash safety on lowdb', () => {
  it('loses no acknowledged write, keeps every chain valid and fires no tick twice across 20 kill -9 restarts', async () => {
    const { dir, cleanup } = await tempDir('core-crash-');
    let repairs = 0;
    const damaged: string[] = [];
    try {
      const result = await runCrashLoop({
        name: 'lowdb',
        // Empty DATABASE_URL: lowdb even when the caller's environment names a database.
        env: { CORE_DATA_DIR: dir, DATABASE_URL: '', DATABASE_SCHEMA: '' },
        // Checks a copy of the directory as the kill left it, so the restarted server meets the crash
        // state itself (a torn last line, a dead process's lock) and repairs it on its own.
        openStore: async (): Promise<Store> => {
          const snapshot = `${dir}-snapshot`;
          await rm(snapshot, { recursive: true, force: true });
          await cp(dir, snapshot, { recursive: true });
          const store = createLowdbStore({
            dataDir: snapshot,
            fsync: false,
            // A torn last line is a crash's normal leftover; a damaged row before the end never is.
            onWarning: (w) => (w.droppedBytes > 0 ? repairs++ : damaged.push(w.message)),
          });
          await store.open();
          const close = store.close.bind(store);
          return Object.assign(store, {
            close: async () => {
              await close();
              await rm(snapshot, { recursive: true, force: true });
            },
          });
        },
      });
      console.info(`crash (lowdb): ${JSON.stringify({ ...result, torn_lines_repaired: repairs })}`);
      expect(result.kills).toBeGreaterThanOrEqual(20);
      expect(damaged).toEqual([]);
    } finally {
      await rm(`${dir}-snapshot`, { recursive: true, force: true });
      await cleanup();
    }
  });
});
