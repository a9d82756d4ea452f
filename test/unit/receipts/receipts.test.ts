import { describe, expect, it } from 'vitest';
import { createReceiptsService, type Receipt } from '../../../src/domain/receipts/receipts.service.js';
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

async function failure(promise: Promise<unknown>): Promise<any> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error('the receipt was accepted');
}

/** Changes one character of the field's JSON text (a digit, a hex digit or a letter). */
function oneByteChanged(receipt: Receipt, field: keyof Receipt): Receipt {
  const value = receipt[field];
  const flip = (s: string, i: number) => {
    const ch = s[i]!;
    const next = /[0-8]/.test(ch) ? String(Number(ch) + 1) : ch === '9' ? '0' : /[a-e]/.test(ch) ? String.fromCharCode(ch.charCodeAt(0) + 1) : ch === 'f' ? 'a' : ch === ch.toUpperCase() ? ch.toLowerCase() === ch ? 'x' : ch.toLowerCase() : ch.toUpperCase();
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
    expect(receipt).toMatchObject({ kind: 'solve', solver: 'root-brent', operator_chain: ['KO42', 'CMP1'], solver_version: '1.0.0', tick: Math.floor(1_777_000_000_123 / 777) });
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
    expect(result).toMatchObject({ ok: true, valid: true, checks: ['hmac', 'input_sha256', 'output_sha256'], recomputed: false, age_ticks: 5 });
  });

  it('recomputes and compares the output digest', async () => {
    const { receipts, receipt, output } = setup();
    const ok = await receipts.verifyReceipt(receipt, { recompute: async () => output });
    expect(ok.checks).toEqual(['hmac', 'recompute']);
    const err = await failure(receipts.verifyReceipt(receipt, { recompute: async () => ({ root: 1.4142135623730954 }) }));
    expect(err.code).toBe('UNPROCESSABLE');
    expect(err.details.field).toBe('output_sha256');
  });

  for (const field of ['kind', 'solver', 'operator_chain', 'solver_version', 'input_sha256', 'output_sha256', 'tick', 'phase', 'key_id', 'hmac'] as const) {
    it(`refuses a receipt whose ${field} changed by one byte, naming ${field}`, async () => {
      const { receipts, receipt } = setup();
      const tampered = oneByteChanged(receipt, field);
      expect(tampered[field]).not.toEqual(receipt[field]);
      const err = await failure(receipts.verifyReceipt(tampered));
      expect(err.code).toBe('UNPROCESSABLE');
      expect(err.status).toBe(422);
      expect(err.details.field).toBe(field);
      expect(err.message).toContain(field);
    });
  }

  it('names the digest that differs when the caller presents a changed input or output', async () => {
    const { receipts, receipt, input, output } = setup();
    const badInput = await failure(receipts.verifyReceipt(receipt, { input: { ...input, inputs: { ...input.inputs, b: 3 } } }));
    expect(badInput.details).toMatchObject({ field: 'input_sha256', checks_passed: [] });
    const badOutput = await failure(receipts.verifyReceipt(receipt, { input, output: { root: 1.5 } }));
    expect(badOutput.details).toMatchObject({ field: 'output_sha256', checks_passed: ['input_sha256'] });
  });

  it('refuses a receipt made with another key, and one altered in two places as an hmac mismatch', async () => {
    const { receipt } = setup();
    const other = createReceiptsService({ nodeKeys: testNodeKeys('another-key'), clock: createFakeClock(1_777_000_100_000) });
    expect((await failure(other.verifyReceipt(receipt))).details.field).toBe('key_id');
    const { receipts } = setup();
    const twice = { ...receipt, solver: 'root-bisect', input_sha256: receipt.output_sha256 };
    expect((await failure(receipts.verifyReceipt(twice))).details.field).toBe('hmac');
  });
});
