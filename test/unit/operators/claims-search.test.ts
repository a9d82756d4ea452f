import { generateKeyPairSync, sign } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../../src/lib/canonical-json.js';
import { claimSignatureValid, parsePublicKey } from '../../../src/domain/operators/claims.js';
import { createOperatorSearch } from '../../../src/domain/operators/operator-search.js';
import type { OperatorDef } from '../../../src/domain/operators/operator.types.js';

const op = (id: string, name: string, formula = '', description = ''): OperatorDef => ({
  id,
  name,
  formula,
  description,
  expression: 'x',
  inputs: [{ name: 'x', unit: '', description: 'x', example: 1 }],
  output: { name: 'y', unit: '', description: 'y' },
  domain: ['test'],
  tier: 'core',
  proof_required: false,
  category: id.startsWith('NM') ? 'newtonian_mechanics' : 'other',
});

describe('operator search', () => {
  const search = createOperatorSearch([
    op('AB1', 'Pressure of a newt', 'p = F/A', 'mentions nm19 in passing'),
    op('NM19', "Newton's second law", 'F = m·a'),
    op('NM190', 'Hypothetical', 'q = r'),
  ]);

  it('ranks an exact id above an id prefix above a description mention', () => {
    expect(search({ q: 'nm19' }).map((o) => o.id)).toEqual(['NM19', 'NM190', 'AB1']);
  });

  it('needs every word to match and keeps registry order without a query', () => {
    expect(search({ q: 'newton law' }).map((o) => o.id)).toEqual(['NM19']);
    expect(search({}).map((o) => o.id)).toEqual(['AB1', 'NM19', 'NM190']);
    expect(search({ category: 'newtonian_mechanics', ids: ['nm190'] }).map((o) => o.id)).toEqual(['NM190']);
  });
});

describe('signed claims', () => {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const claim = { value: 6, operators: ['KO42', 'NM19'], unit: 'N' };
  const signature = sign(null, Buffer.from(canonicalJson(claim)), privateKey).toString('base64url');

  it('reads an Ed25519 key as raw base64url, raw base64 or SPKI PEM, and verifies the canonical claim whatever its key order', () => {
    const raw = (publicKey.export({ format: 'jwk' }) as { x: string }).x;
    const pem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
    for (const text of [raw, Buffer.from(raw, 'base64url').toString('base64'), pem]) {
      expect(claimSignatureValid({ unit: 'N', value: 6, operators: ['KO42', 'NM19'] }, signature, parsePublicKey(text))).toBe(true);
    }
    expect(claimSignatureValid({ ...claim, value: 7 }, signature, parsePublicKey(raw))).toBe(false);
  });

  it('refuses a key that is not Ed25519 with a validation error', () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ type: 'spki', format: 'pem' }).toString();
    for (const text of ['short', rsa]) expect(() => parsePublicKey(text)).toThrow(/Ed25519 public key/);
  });
});
