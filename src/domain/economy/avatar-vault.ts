import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { sha256Hex } from '../../lib/hash.js';
import { storedSecret } from '../identity/stored-secret.js';
import type { AvatarContentType, AvatarRef } from './tally-token.js';
import type { NodeKeyRepository } from '../identity/node-key-repository.js';
import type { AvatarRepository } from './avatar-repository.js';

const VAULT_KEY_ID = 'tally-avatar';

/**
 * Token avatars encrypted at rest with AES-256-GCM (96-bit IV, 128-bit tag). The master key is random,
 * made once and kept in the `node-keys` collection; each machine's key is derived from it with
 * HKDF-SHA256 over slug and genesis tick, and each ciphertext is bound to its machine and image digest
 * (additional data), so a ciphertext copied to another machine or ref does not decrypt.
 */
export interface AvatarVault {
  put(slug: string, genesisTick: number, image: Buffer, contentType: AvatarContentType, tick: number): Promise<AvatarRef>;
  /** The decrypted image; throws when the ciphertext is missing, altered or not the one `ref` names. */
  get(slug: string, genesisTick: number, ref: AvatarRef): Promise<Buffer>;
}

export function createAvatarVault(deps: { avatarRecords: AvatarRepository; nodeKeyRecords: NodeKeyRepository; now: () => number }): AvatarVault {
  const { avatarRecords } = deps;
  let master: Promise<Buffer> | undefined;

  const load = () => storedSecret(deps.nodeKeyRecords, VAULT_KEY_ID, deps.now);
  const keyFor = async (slug: string, genesisTick: number) =>
    Buffer.from(hkdfSync('sha256', await (master ??= load()), 'core-tally-avatar-v1', `machine|${slug}|${genesisTick}`, 32));
  const aad = (slug: string, sha256: string) => Buffer.from(`core-avatar|${slug}|${sha256}`);

  return {
    async put(slug, genesisTick, image, contentType, tick) {
      const key = await keyFor(slug, genesisTick);
      const sha256 = sha256Hex(image);
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(aad(slug, sha256));
      const ct = Buffer.concat([cipher.update(image), cipher.final()]);
      const row = await avatarRecords.append(slug, {
        type: 'avatar',
        tick,
        alg: 'A256GCM',
        iv: iv.toString('base64'),
        ct: ct.toString('base64'),
        tag: cipher.getAuthTag().toString('base64'),
      });
      return { seq: row.seq, sha256, size_bytes: image.length, content_type: contentType };
    },
    async get(slug, genesisTick, ref) {
      const row = await avatarRecords.get(slug, ref.seq);
      if (!row) throw new Error(`avatar row ${ref.seq} of ${slug} is missing`);
      const decipher = createDecipheriv('aes-256-gcm', await keyFor(slug, genesisTick), Buffer.from(row.iv, 'base64'));
      decipher.setAAD(aad(slug, ref.sha256));
      decipher.setAuthTag(Buffer.from(row.tag, 'base64'));
      const image = Buffer.concat([decipher.update(Buffer.from(row.ct, 'base64')), decipher.final()]);
      if (sha256Hex(image) !== ref.sha256) throw new Error(`avatar of ${slug} does not match its digest`);
      return image;
    },
  };
}
