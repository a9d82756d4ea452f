import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createRollingWindows } from '../../../src/domain/quotas/rolling-window.js';
import { createLowdbStore } from '../../../src/storage/lowdb/lowdb.store.js';
import type { Store } from '../../../src/storage/port.js';
import { storageOf } from '../../helpers/repositories.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

async function openStore(): Promise<Store> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'core-window-'));
  const store = createLowdbStore({ dataDir: dir });
  await store.open();
  cleanups.push(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });
  return store;
}

describe('rolling windows', () => {
  it('lets exactly the limit through when many take at once', async () => {
    const store = await openStore();
    const windows = createRollingWindows({ windows: storageOf(store).demoKeyWindows, windowMs: 60_000, now: () => 1_000_000 });
    const taken = await Promise.all(Array.from({ length: 50 }, () => windows.take('k', 7)));
    expect(taken.filter((t) => t.taken)).toHaveLength(7);
    expect(taken.find((t) => !t.taken)).toEqual({ taken: false, retry_after_ms: 60_000 });
  });

  it('frees a use when it leaves the window, and says when that is', async () => {
    const store = await openStore();
    let now = 0;
    const windows = createRollingWindows({ windows: storageOf(store).demoKeyWindows, windowMs: 1000, now: () => now });
    expect((await windows.take('k', 2)).taken).toBe(true);
    now = 400;
    expect((await windows.take('k', 2)).taken).toBe(true);
    now = 500;
    expect(await windows.take('k', 2)).toEqual({ taken: false, retry_after_ms: 500 });
    expect((await windows.take('other', 2)).taken).toBe(true);
    now = 1000;
    expect((await windows.take('k', 2)).taken).toBe(true);
    expect(await windows.take('k', 2)).toEqual({ taken: false, retry_after_ms: 400 });
  });

  it('refuses everything with a limit of 0 and sweeps records whose uses all left the window', async () => {
    const store = await openStore();
    let now = 0;
    const windows = createRollingWindows({ windows: storageOf(store).demoKeyWindows, windowMs: 1000, now: () => now });
    expect(await windows.take('none', 0)).toEqual({ taken: false, retry_after_ms: 1000 });
    for (const key of ['a', 'b', 'c']) await windows.take(key, 1);
    expect(await store.docs.count('quota-demo-keys')).toBe(3);
    now = 5000;
    await windows.take('d', 1);
    expect(await store.docs.count('quota-demo-keys')).toBe(1);
  });
});
