import { describe, expect, it } from 'vitest';
import { createChatQuotaRepository } from '../../src/domain/chat/chat-quota-repository.js';
import { freshStore, type MakeStore } from './store-harness.js';

/** The chat quotas repository on every adapter. */
export function runChatQuotaRepositoryContract(name: string, makeStore: MakeStore): void {
  describe(`chat quota repository: ${name}`, () => {
    it('counts at most the limit of concurrent takes a day, gives one back, and starts again the next day', async () => {
      const { store } = await freshStore(makeStore);
      const quotas = createChatQuotaRepository(store);
      const taken = await Promise.all(Array.from({ length: 5 }, () => quotas.take('u1', 'd1', 3)));
      expect(taken.filter((n) => n !== undefined).sort()).toEqual([1, 2, 3]);
      expect(await quotas.usedOn('u1', 'd1')).toBe(3);
      await quotas.giveBack('u1', 'd1');
      expect(await quotas.usedOn('u1', 'd1')).toBe(2);
      expect(await quotas.usedOn('u1', 'd2')).toBe(0);
      await quotas.giveBack('u1', 'd0');
      expect(await quotas.take('u1', 'd2', 3)).toBe(1);
      expect(await quotas.usedOn('u2', 'd2')).toBe(0);
    });
  });
}
