import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';

/** The file in the data directory holding the key that seals `find` cursors (64 hex characters). */
export const CURSOR_KEY_FILE = '.cursor-key';

const KEY_TEXT = /^[0-9a-f]{64}$/;
/** 16 bytes of HMAC-SHA256, base64url. */
const SEAL_LENGTH = 22;

/**
 * The data directory's cursor key, created on first open. Lost or damaged, a new one is made: cursors
 * handed out before are then refused as altered, nothing else depends on it.
 */
export async function loadCursorKey(file: string): Promise<Buffer> {
  const text = (await readFile(file, 'utf8').catch(() => '')).trim();
  if (KEY_TEXT.test(text)) return Buffer.from(text, 'hex');
  const key = randomBytes(32);
  await writeFile(file, `${key.toString('hex')}\n`, { mode: 0o600 });
  return key;
}

const sealOf = (key: Buffer, collection: string, ord: number, id: string): string =>
  createHmac('sha256', key).update(`${collection}\n${ord}\n${id}`).digest().subarray(0, 16).toString('base64url');

/**
 * A `find` cursor: the ordinal of a record, a seal and the record's id. The id is looked up first when
 * the cursor is used (its ordinal is what counts while it exists, across restarts), so an id a caller
 * chose would say whether that record exists and where: the seal makes a cursor nobody can write but
 * this store, for this collection.
 */
export function sealCursor(key: Buffer, collection: string, ord: number, id: string): string {
  return `${ord}:${sealOf(key, collection, ord, id)}:${id}`;
}

/** The ordinal and id of a cursor `sealCursor` wrote for this collection; undefined for anything else. */
export function openCursor(key: Buffer, collection: string, cursor: string): { ord: number; id: string } | undefined {
  const colon = cursor.indexOf(':');
  const ord = Number(cursor.slice(0, colon));
  if (colon < 1 || !Number.isSafeInteger(ord) || ord < 0 || cursor[colon + 1 + SEAL_LENGTH] !== ':') return undefined;
  const seal = Buffer.from(cursor.slice(colon + 1, colon + 1 + SEAL_LENGTH));
  const id = cursor.slice(colon + 2 + SEAL_LENGTH);
  const expected = Buffer.from(sealOf(key, collection, ord, id));
  return seal.length === expected.length && timingSafeEqual(seal, expected) ? { ord, id } : undefined;
}
