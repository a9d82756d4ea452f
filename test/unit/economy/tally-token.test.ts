import { describe, expect, it } from 'vitest';
import { allowanceAt, envelopeHash, envelopeValue, parseEnvelopeId, remainingAt, envelopeId } from '../../../src/domain/economy/tally-token.js';

const token = { max_supply: 100, mint_rate_per_tick: 3, accrual: { tick: 1000, allowance: 0 } };

describe('issuance allowance', () => {
  it('grows at the mint rate per elapsed tick and stops at max_supply', () => {
    expect(allowanceAt(token, 1000)).toBe(0);
    expect(allowanceAt(token, 1010)).toBe(30);
    expect(allowanceAt(token, 1_000_000)).toBe(100);
  });

  it('adds nothing when the clock is behind the accrual point', () => {
    expect(allowanceAt(token, 900)).toBe(0);
  });

  it('continues from a folded accrual point after a rate change', () => {
    const changed = { ...token, mint_rate_per_tick: 10, accrual: { tick: 1010, allowance: allowanceAt(token, 1010) } };
    expect(allowanceAt(changed, 1015)).toBe(80);
  });

  it('reports tokens_remaining as allowance minus minted, never negative', () => {
    expect(remainingAt(token, 25, 1010)).toBe(5);
    expect(remainingAt(token, 40, 1010)).toBe(0);
  });
});

describe('envelopes', () => {
  it('values a result between its cost and twice its cost by precision', () => {
    expect(envelopeValue(3, 0)).toBe(6);
    expect(envelopeValue(3, 0.001)).toBe(3);
    expect(envelopeValue(3, 0.0005)).toBe(5);
    expect(envelopeValue(3, 0.5)).toBe(3);
    expect(envelopeValue(2, undefined)).toBe(2);
  });

  it('round-trips envelope ids, which carry an opaque handle rather than the slug, and refuses malformed ones', () => {
    const handle = 'abcdefghijklmnop';
    expect(parseEnvelopeId(envelopeId(handle, 42))).toEqual({ handle, seq: 42 });
    for (const bad of ['lab.3', `tt_${handle}_`, `tt_${handle}_-1`, `tt_ABCDEFGHIJKLMNOP_1`, `tt_${handle}_1_2`, `tt_short_1`])
      expect(parseEnvelopeId(bad)).toBeUndefined();
  });

  it('hashes every immutable field, so changing any of them changes token_hash', () => {
    const f = { token_id: 'a.0', machine_slug: 'a', tick: 5, value: 2, source: 'compute' as const, result_digest: 'f'.repeat(64), issued_to: 'u1' };
    const h = envelopeHash(f);
    for (const change of [{ value: 3 }, { tick: 6 }, { issued_to: null }, { source: 'solve' as const }, { result_digest: 'e'.repeat(64) }]) {
      expect(envelopeHash({ ...f, ...change })).not.toBe(h);
    }
  });
});
