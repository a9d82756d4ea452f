import { randomBytes } from 'node:crypto';
import type { NodeKeyRepository } from './node-key-repository.js';

/**
 * A 32-byte secret of the node, generated on first use and kept with the node's keys (never exported
 * or logged). When two processes create it at once, the first insert wins and both use it.
 */
export async function storedSecret(nodeKeyRecords: NodeKeyRepository, id: string, now: () => number): Promise<Buffer> {
  const stored = await nodeKeyRecords.getOrCreate<{ key_hex: string; created_at: string }>(id, () => ({
    key_hex: randomBytes(32).toString('hex'),
    created_at: new Date(now()).toISOString(),
  }));
  return Buffer.from(stored.key_hex, 'hex');
}
