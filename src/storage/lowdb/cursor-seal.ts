import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';

/** The file in the data directory holding the key that seals `find` cursors (64 hex characters). */
export const CURSOR_KEY_FILE = '.cursor-key';

const KEY_TEXT = /^[0-9a-f]{64}$/;
const IV_BYTES = 12;
const TAG_BYTES = 16;

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

const subkey = (key: Buffer, purpose: string) => createHmac('sha256', createHmac('sha256', key).update(purpose).digest());
const encryptionKeys = new WeakMap<Buffer, Buffer>();
/** The AES key, derived from the stored key once per key. */
function encryptionKey(key: Buffer): Buffer {
  let derived = encryptionKeys.get(key);
  if (derived === undefined) encryptionKeys.set(key, (derived = createHmac('sha256', key).update('cursor-encryption').digest()));
  return derived;
}

/**
 * A `find` cursor: the ordinal and id of a record, encrypted and authenticated (AES-256-GCM, the
 * collection as associated data). The id is looked up first when the cursor is used (its ordinal is
 * what counts while it exists, across restarts), so a cursor a caller could write would say whether a
 * record exists and where; and a cursor a list hands out may mark a record the caller was not shown (a
 * scan that stopped on its budget), so nothing of it may be readable either. The nonce is derived from
 * the plaintext (a synthetic IV, with its own subkey), so one record always gets the same cursor and a
 * nonce never serves two plaintexts.
 */
export function sealCursor(key: Buffer, collection: string, ord: number, id: string): string {
  const iv = subkey(key, 'cursor-iv').update(`${collection}\n${ord}\n${id}`).digest().subarray(0, IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', encryptionKey(key), iv).setAAD(Buffer.from(collection));
  const sealed = Buffer.concat([iv, cipher.update(`${ord}\n${id}`, 'utf8'), cipher.final(), cipher.getAuthTag()]);
  return sealed.toString('base64url');
}

/** The ordinal and id of a cursor `sealCursor` wrote for this collection with this key; undefined for anything else. */
export function openCursor(key: Buffer, collection: string, cursor: string): { ord: number; id: string } | undefined {
  const sealed = Buffer.from(cursor, 'base64url');
  if (sealed.length < IV_BYTES + TAG_BYTES + 2 || sealed.toString('base64url') !== cursor) return undefined;
  let text: string;
  try {
    const decipher = createDecipheriv('aes-256-gcm', encryptionKey(key), sealed.subarray(0, IV_BYTES)).setAAD(Buffer.from(collection));
    decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
    text = Buffer.concat([decipher.update(sealed.subarray(IV_BYTES, sealed.length - TAG_BYTES)), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
  const newline = text.indexOf('\n');
  const ord = Number(text.slice(0, newline));
  return newline > 0 && Number.isSafeInteger(ord) && ord >= 0 ? { ord, id: text.slice(newline + 1) } : undefined;
}
