import { describe, expect, it } from 'vitest';
import { loadNodeKeys } from '../../../src/domain/identity/node-keys.js';
import { createLowdbStore } from '../../../src/storage/lowdb/lowdb.store.js';
import { tempDir } from '../../helpers/server.js';
import { storageOf } from '../../helpers/repositories.js';

describe('the node keys', () => {
  it('are generated once and survive a restart', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const store = createLowdbStore({ dataDir: dir, fsync: false });
      await store.open();
      const first = await loadNodeKeys({ ...storageOf(store) });
      const sig = first.sign('hello');
      await store.close();
      const again = createLowdbStore({ dataDir: dir, fsync: false });
      await again.open();
      const second = await loadNodeKeys({ ...storageOf(again) });
      expect(second.keyId).toBe(first.keyId);
      expect(second.receiptKeyId).toBe(first.receiptKeyId);
      expect(second.verify('hello', sig)).toBe(true);
      expect(second.verify('hellO', sig)).toBe(false);
      expect(second.hmac('x')).toBe(first.hmac('x'));
      await again.close();
    } finally {
      await cleanup();
    }
  });

  it('take the receipt key from CORE_RECEIPT_KEY when it is set', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const store = createLowdbStore({ dataDir: dir, fsync: false });
      await store.open();
      const a = await loadNodeKeys({ ...storageOf(store), receiptKey: 'secret-one' });
      const b = await loadNodeKeys({ ...storageOf(store), receiptKey: 'secret-two' });
      expect(a.hmac('x')).not.toBe(b.hmac('x'));
      expect(a.publicJwk).toMatchObject({ kty: 'OKP', crv: 'Ed25519', kid: a.keyId });
      await store.close();
    } finally {
      await cleanup();
    }
  });
});
