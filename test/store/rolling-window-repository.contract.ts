import { describe, expect, it } from 'vitest';
import { createRollingWindowRepository, type WindowRecord } from '../../src/domain/quotas/rolling-window-repository.js';
import { freshStore, type MakeStore } from './store-harness.js';

/** The rolling-window repository on every adapter. */
export function runRollingWindowRepositoryContract(name: string, makeStore: MakeStore): void {
  describe(`rolling window repository: ${name}`, () => {
    it('keeps every concurrent hit of one key and sweeps only the stale records', async () => {
      const { store } = await freshStore(makeStore);
      const windows = createRollingWindowRepository(store, 'unlock-guesses');
      const hit = (id: string, at: number) => windows.update(id, (current) => ({ id, hits: [...(current?.hits ?? []), at] }));
      await Promise.all([1, 2, 3, 4].map((at) => hit('busy', at)));
      await hit('idle', 0);
      await windows.sweep((r) => r.hits.every((t) => t < 1));
      const seen: Record<string, WindowRecord | undefined> = {};
      for (const id of ['busy', 'idle']) {
        await windows.update(id, (current) => {
          seen[id] = current;
          return undefined;
        });
      }
      expect(seen.busy?.hits.sort()).toEqual([1, 2, 3, 4]);
      expect(seen.idle).toBeUndefined();
      expect(await store.docs.count('quota-demo-keys')).toBe(0);
    });
  });
}
