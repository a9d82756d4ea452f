import { describe, expect, it } from 'vitest';
import { createNodeKeyRepository } from '../../src/domain/identity/node-key-repository.js';
import { freshStore, type MakeStore } from './store-harness.js';

/** The node's secrets on every adapter. */
export function runNodeKeyRepositoryContract(name: string, makeStore: MakeStore): void {
  describe(`node key repository: ${name}`, () => {
    it('creates a secret once: concurrent first uses and later ones all get the first stored record', async () => {
      const { store, reopen } = await freshStore(makeStore);
      const secrets = createNodeKeyRepository(store);
      const made = await Promise.all([1, 2, 3].map((n) => secrets.getOrCreate('vault', () => ({ key_hex: `k${n}` }))));
      expect(new Set(made.map((r) => r.key_hex)).size).toBe(1);
      const again = createNodeKeyRepository(await reopen());
      let called = false;
      const later = await again.getOrCreate('vault', () => {
        called = true;
        return { key_hex: 'other' };
      });
      expect(later).toEqual(made[0]);
      expect(called).toBe(false);
    });
  });
}
