import { randomBytes } from 'node:crypto';
import { DuplicateKeyError, type Store } from '../../storage/port.js';
import { NODE_KEYS } from './node-keys.js';

/**
 * A 32-byte secret of the node, generated on first use and kept in the `node-keys` collection (never
 * exported or logged). When two processes create it at once, the first insert wins and both use it.
 */
export async function storedSecret(store: Store, id: string, now: () => number): Promise<Buffer> {
  let stored = await store.docs.get<{ key_hex: string }>(NODE_KEYS, id);
  if (!stored) {
    const fresh = { key_hex: randomBytes(32).toString('hex'), created_at: new Date(now()).toISOString() };
    try {
      await store.docs.insert(NODE_KEYS, id, fresh);
      stored = fresh;
    } catch (err) {
      if (!(err instanceof DuplicateKeyError)) throw err;
      stored = (await store.docs.get<{ key_hex: string }>(NODE_KEYS, id))!;
    }
  }
  return Buffer.from(stored.key_hex, 'hex');
}
