import { generateKeyPairSync, sign } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { checkPeerSignature, decodeSignature, loadPeerKeys } from '../../../src/domain/economy/peer-keys.js';
import { CoreError } from '../../../src/errors.js';

const pair = generateKeyPairSync('ed25519');
const raw = (pair.publicKey.export({ format: 'jwk' }) as { x: string }).x;

describe('published peer keys (CORE_PEER_KEYS)', () => {
  it('reads raw base64url, hex and PEM keys, deriving the key id from the raw key when absent', () => {
    const hex = Buffer.from(raw, 'base64url').toString('hex');
    const pem = pair.publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const ring = loadPeerKeys(
      JSON.stringify([
        { uid: 'a', public_key: raw },
        { uid: 'b', public_key: hex, key_id: 'b1' },
        { uid: 'c', public_key: pem, key_id: 'c1' },
      ]),
    );
    expect(ring.size).toBe(3);
    expect(ring.currentOf('a')!.key_id).toMatch(/^[0-9a-f]{16}$/);
    expect(ring.byId('b1')!.uid).toBe('b');
  });

  it('stops with a message naming a bad entry rather than dropping it', () => {
    expect(() => loadPeerKeys('[{"uid":"a"}]')).toThrow(/entry 0/);
    expect(() => loadPeerKeys('[{"uid":"a","public_key":"abcd"}]')).toThrow(/32 bytes/);
    expect(() => loadPeerKeys('{"uid":"a"}')).toThrow(/no file/);
    expect(() => loadPeerKeys('[1')).toThrow(/not valid JSON/);
  });

  it('takes the last key listed for a uid as its current key', () => {
    const other = generateKeyPairSync('ed25519');
    const ring = loadPeerKeys(
      JSON.stringify([
        { uid: 'a', public_key: raw, key_id: 'old' },
        { uid: 'a', public_key: (other.publicKey.export({ format: 'jwk' }) as { x: string }).x, key_id: 'new' },
      ]),
    );
    expect(ring.currentOf('a')!.key_id).toBe('new');
  });
});

describe('peer signatures', () => {
  const ring = loadPeerKeys(JSON.stringify([{ uid: 'a', public_key: raw, key_id: 'k' }]));
  const message = 'credits-conversion|a|100';
  const sig = sign(null, Buffer.from(message), pair.privateKey);

  it('accepts hex, base64 and base64url encodings of a 64-byte signature', () => {
    for (const enc of ['hex', 'base64', 'base64url'] as const) expect(checkPeerSignature(ring, 'a', 'k', message, sig.toString(enc)).key_id).toBe('k');
    expect(decodeSignature('abcd')).toBeUndefined();
  });

  it('refuses a signature over another message or for another uid with FORBIDDEN', () => {
    const refuse = (f: () => unknown) => {
      try {
        f();
      } catch (err) {
        return (err as CoreError).code;
      }
      return 'accepted';
    };
    expect(refuse(() => checkPeerSignature(ring, 'a', 'k', 'credits-conversion|a|101', sig.toString('hex')))).toBe('FORBIDDEN');
    expect(refuse(() => checkPeerSignature(ring, 'b', 'k', message, sig.toString('hex')))).toBe('FORBIDDEN');
    expect(refuse(() => checkPeerSignature(ring, 'b', undefined, message, sig.toString('hex')))).toBe('FORBIDDEN');
  });
});
