import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLowdbStore, type LowdbStoreOptions } from '../../src/storage/lowdb/lowdb.store.js';
import type { Store } from '../../src/storage/port.js';
import type { StoreHarness } from './store-harness.js';

/** A lowdb store, opened on a fresh temp dir; `dataDir` lets tests look at the files. */
export async function makeLowdbHarness(options: Partial<LowdbStoreOptions> = {}): Promise<StoreHarness & { dataDir: string }> {
  const dataDir = await mkdtemp(join(tmpdir(), 'core-lowdb-'));
  let current: Store = createLowdbStore({ ...options, dataDir });
  await current.open();
  return {
    dataDir,
    store: current,
    async reopen() {
      await current.close();
      current = createLowdbStore({ ...options, dataDir });
      await current.open();
      return current;
    },
    async cleanup() {
      await current.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
