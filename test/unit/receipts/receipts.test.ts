import { describe, expect, it } from 'vitest';
import { createReceiptsService, type Receipt, type VerifyResult } from '../../../src/domain/receipts/receipts.service.js';
import { signedPayload } from '../../../src/domain/receipts/receipt.js';
import { createFakeClock } from '../../../src/lib/clock.js';
import { digestOf } from '../../../src/lib/hash.js';
import { testNodeKeys } from '../solvers/solve-helper.js';

function setup() {
  const clock = createFakeClock(1_777_000_000_123);
  const receipts = createReceiptsService({ nodeKeys: testNodeKeys(), clock });
  const input = { inputs: { f: 'x^2 - 2', a: 0, b: 2 }, options: {} };
  const output = { root: 1.4142135623730951 };
  const receipt = receipts.issueReceipt({ kind: 'solve', solver: 'root-brent', chain: ['KO42', 'CMP1'], version: '1.0.0', input, output });
  return { clock, receipts, receipt, input, output };
}

/** The verdict on a receipt expected to fail a check: it must be an answer (valid: false), never a throw. */
async function failure(promise: Promise<VerifyResult>): Promise<VerifyResult> {
  const verdict = await promise;
  if (verdict.valid) throw new Error('the receipt was accepted');
  return verdict;
}

/** Changes one character of the field's JSON text (a digit, a hex digit or a letter). */
function oneByteChanged(receipt: Receipt, field: keyof Receipt): Receipt {
  const value = receipt[field];
  const flip = (s: string, i: number) => {
    const ch = s[i]!;
    const next = /[0-8]/.test(ch)
      ? String(Number(ch) + 1)
      : ch === '9'
        ? '0'
        : /[a-e]/.test(ch)
          ? String.fromCharCode(ch.charCodeAt(0) + 1)
          : ch === 'f'
            ? 'a'
            : ch === ch.toUpperCase()
              ? ch.toLowerCase() === ch
                ? 'x'
                : ch.toLowerCase()
              : ch.toUpperCase();
    return s.slice(0, i) + next + s.slice(i + 1);
  };
  if (typeof value === 'number') {
    const text = String(value);
    const i = text.length - 2;
    return { ...receipt, [field]: Number(flip(text, i)) };
  }
  if (Array.isArray(value)) return { ...receipt, [field]: [value[0]!, flip(value[1]!, value[1]!.length - 1)] };
  if (field === 'kind') return { ...receipt, kind: 'compute' };
  return { ...receipt, [field]: flip(value as string, 3) };
}

describe('receipts', () => {
  it('issues a receipt binding digests of the canonical input and output, tick, phase and key id', () => {
    const { receipt, input, output } = setup();
    expect(receipt).toMatchObject({
      kind: 'solve',
      solver: 'root-brent',
      operator_chain: ['KO42', 'CMP1'],
      solver_version: '1.0.0',
      tick: Math.floor(1_777_000_000_123 / 777),
    });
    expect(receipt.phase).toBe((1_777_000_000_123 % 777) / 777);
    expect(receipt.input_sha256).toBe(digestOf({ options: {}, inputs: { b: 2, a: 0, f: 'x^2 - 2' } }));
    expect(receipt.output_sha256).toBe(digestOf(output));
    expect(receipt.hmac).toBe(testNodeKeys().hmac(signedPayload(receipt)));
    void input;
  });

  it('verifies an untouched receipt with its input and output and reports its age in ticks', async () => {
    const { receipts, receipt, input, output, clock } = setup();
    clock.advance(777 * 5);
    const result = await receipts.verifyReceipt(receipt, { input, output });
    expect(result).toMatchObject({
      ok: true,
      valid: true,
      checks: ['hmac', 'input_sha256', 'output_sha256'],
      failed: null,
      reason: null,
      recomputed: false,
      age_ticks: 5,
    });
  });

  it('recomputes and compares the output digest', async () => {
    const { receipts, receipt, output } = setup();
    const ok = await receipts.verifyReceipt(receipt, { recompute: async () => output });
    expect(ok.checks).toEqual(['hmac', 'recompute']);
    const verdict = await failure(receipts.verifyReceipt(receipt, { recompute: async () => ({ root: 1.4142135623730954 }) }));
    expect(verdict.failed).toMatchObject({ check: 'recompute', field: 'output_sha256' });
  });

  for (const field of ['kind', 'solver', 'operator_chain', 'solver_version', 'input_sha256', 'output_sha256', 'tick', 'phase', 'key_id', 'hmac'] as const) {
    it(`answers valid: false for a receipt whose ${field} changed by one byte, naming ${field}`, async () => {
      const { receipts, receipt } = setup();
      const tampered = oneByteChanged(receipt, field);
      expect(tampered[field]).not.toEqual(receipt[field]);
      const verdict = await failure(receipts.verifyReceipt(tampered));
      expect(verdict.failed?.field).toBe(field);
      expect(verdict.reason).toContain(field);
      expect(verdict.checks).not.toContain('hmac');
    });
  }

  it('names the digest that differs when the caller presents a changed input or output', async () => {
    const { receipts, receipt, input } = setup();
    const badInput = await failure(receipts.verifyReceipt(receipt, { input: { ...input, inputs: { ...input.inputs, b: 3 } } }));
    expect(badInput).toMatchObject({ failed: { check: 'input_sha256', field: 'input_sha256' }, checks: [] });
    const badOutput = await failure(receipts.verifyReceipt(receipt, { input, output: { root: 1.5 } }));
    expect(badOutput).toMatchObject({ failed: { check: 'output_sha256', field: 'output_sha256' }, checks: ['input_sha256'] });
  });

  it('answers valid: false for a receipt made with another key, and for one altered in two places as an hmac mismatch', async () => {
    const { receipt } = setup();
    const other = createReceiptsService({ nodeKeys: testNodeKeys('another-key'), clock: createFakeClock(1_777_000_100_000) });
    expect((await failure(other.verifyReceipt(receipt))).failed?.field).toBe('key_id');
    const { receipts } = setup();
    const twice = { ...receipt, solver: 'root-bisect', input_sha256: receipt.output_sha256 };
    expect((await failure(receipts.verifyReceipt(twice))).failed).toMatchObject({ check: 'hmac', field: 'hmac' });
  });

  it('answers a receipt whose output_sha256 was replaced outright with valid: false on the hmac check, without claiming it changed in several places', async () => {
    const { receipts, receipt, output } = setup();
    const replaced = { ...receipt, output_sha256: digestOf({ root: 2 }) };
    const verdict = await failure(receipts.verifyReceipt(replaced));
    expect(verdict.failed).toMatchObject({ check: 'hmac', field: 'hmac' });
    expect(verdict.reason).not.toMatch(/more than one place/);
    // Given the original output, the verdict names the digest that changed.
    const named = await failure(receipts.verifyReceipt(replaced, { output }));
    expect(named.failed).toMatchObject({ check: 'output_sha256', field: 'output_sha256', expected: receipt.output_sha256 });
  });
});
