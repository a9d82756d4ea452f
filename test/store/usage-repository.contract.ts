import { describe, expect, it } from 'vitest';
import { createUsageRepository } from '../../src/domain/usage/usage-repository.js';
import { freshStore, type MakeStore } from './store-harness.js';

/** The usage repository on every adapter. */
export function runUsageRepositoryContract(name: string, makeStore: MakeStore): void {
  describe(`usage repository: ${name}`, () => {
    it("keeps each caller's calls apart and reads them from a tick on", async () => {
      const { store } = await freshStore(makeStore);
      const usage = createUsageRepository(store);
      for (const tick of [1, 5, 9]) await usage.record('u1', { tick, type: 'solve', targets: [`s${tick}`], at: 'a' });
      await usage.record('u2', { tick: 5, type: 'compute', targets: ['KO42'], at: 'a' });
      expect((await usage.rows('u1')).map((r) => r.targets[0])).toEqual(['s1', 's5', 's9']);
      expect((await usage.rows('u1', 5)).map((r) => r.tick)).toEqual([5, 9]);
      expect(await usage.rows('u2')).toEqual([expect.objectContaining({ type: 'compute', targets: ['KO42'] })]);
      expect(await usage.rows('u3')).toEqual([]);
    });
  });
}
