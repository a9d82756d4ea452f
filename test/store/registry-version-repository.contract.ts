import { describe, expect, it } from 'vitest';
import { createRegistryVersionRepository, type RegistryVersionRecord } from '../../src/domain/manifest/registry-version-repository.js';
import { DuplicateKeyError } from '../../src/storage/port.js';
import { freshStore, type MakeStore } from './store-harness.js';

const version = (n: number, digest: string): RegistryVersionRecord => ({
  version: `r${n}`,
  n,
  created_at: 'a',
  created_tick: n,
  digests: { 'catalog/x.json': digest },
});

/** The registry versions repository on every adapter. */
export function runRegistryVersionRepositoryContract(name: string, makeStore: MakeStore): void {
  describe(`registry version repository: ${name}`, () => {
    it('records each version once and returns the whole history', async () => {
      const { store } = await freshStore(makeStore);
      const versions = createRegistryVersionRepository(store);
      expect(await versions.all()).toEqual([]);
      await versions.insert(version(1, 'a'));
      await versions.insert(version(2, 'b'));
      await expect(versions.insert(version(2, 'c'))).rejects.toBeInstanceOf(DuplicateKeyError);
      expect(await versions.all()).toEqual([version(1, 'a'), version(2, 'b')]);
    });
  });
}
