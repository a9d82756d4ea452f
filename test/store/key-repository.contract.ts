import { describe, expect, it } from 'vitest';
import { createKeyRepository, type KeyRecord } from '../../src/domain/identity/key-repository.js';
import { DuplicateKeyError } from '../../src/storage/port.js';
import { freshStore, type MakeStore } from './store-harness.js';

const key = (hash: string, fields: Partial<KeyRecord> = {}): KeyRecord => ({
  key_id: `k_${hash}`,
  hash,
  uid: 'u1',
  kind: 'user',
  created_at: '2026-01-01T00:00:00.000Z',
  ...fields,
});

/** The keys repository on every adapter. */
export function runKeyRepositoryContract(name: string, makeStore: MakeStore): void {
  describe(`key repository: ${name}`, () => {
    it('finds a key by hash and by machine and id, and refuses a second key with the same hash', async () => {
      const { store } = await freshStore(makeStore);
      const keys = createKeyRepository(store);
      await keys.insert(key('h1'));
      await keys.insert(key('h2', { kind: 'developer', machine: 'm1', uid: 'key:k_h2' }));
      expect(await keys.byHash('h1')).toEqual(key('h1'));
      expect(await keys.byHash('nope')).toBeUndefined();
      expect((await keys.byMachineKeyId('m1', 'k_h2'))?.hash).toBe('h2');
      expect(await keys.byMachineKeyId('m2', 'k_h2')).toBeUndefined();
      await expect(keys.insert(key('h1'))).rejects.toBeInstanceOf(DuplicateKeyError);
    });

    it("lists a machine's keys oldest first, optionally of one kind", async () => {
      const { store } = await freshStore(makeStore);
      const keys = createKeyRepository(store);
      await keys.insert(key('a', { kind: 'developer', machine: 'm1' }));
      await keys.insert(key('b', { kind: 'machine', machine: 'm1' }));
      await keys.insert(key('c', { kind: 'developer', machine: 'm2' }));
      await keys.insert(key('d', { kind: 'developer', machine: 'm1' }));
      expect((await keys.byMachine('m1')).map((k) => k.hash)).toEqual(['a', 'b', 'd']);
      expect((await keys.byMachine('m1', 'developer')).map((k) => k.hash)).toEqual(['a', 'd']);
      expect(await keys.byMachine('m3')).toEqual([]);
    });

    it('revokes a key once, records its last use, and leaves a missing key missing', async () => {
      const { store } = await freshStore(makeStore);
      const keys = createKeyRepository(store);
      await keys.insert(key('h1'));
      expect(await keys.revoke('h1', '2026-01-02T00:00:00.000Z')).toBe(true);
      expect(await keys.revoke('h1', '2026-01-03T00:00:00.000Z')).toBe(false);
      await keys.touch('h1', '2026-01-04T00:00:00.000Z');
      expect(await keys.byHash('h1')).toMatchObject({ revoked_at: '2026-01-02T00:00:00.000Z', last_used_at: '2026-01-04T00:00:00.000Z' });
      expect(await keys.revoke('gone', '2026-01-02T00:00:00.000Z')).toBe(false);
      await keys.touch('gone', '2026-01-04T00:00:00.000Z');
      expect(await keys.byHash('gone')).toBeUndefined();
    });
  });
}
