import { createHmac } from 'node:crypto';
import { createReceiptsService } from '../../../src/domain/receipts/receipts.service.js';
import { createSolversService, type SolversService } from '../../../src/domain/solvers/solvers.service.js';
import type { NodeKeys } from '../../../src/domain/identity/node-keys.js';
import { createFakeClock } from '../../../src/lib/clock.js';
import { ANONYMOUS } from '../../../src/domain/identity/caller.js';

/** Receipt keys for unit tests: a fixed HMAC key, no store. */
export function testNodeKeys(secret = 'unit-test-receipt-key'): NodeKeys {
  return {
    receiptKeyId: createHmac('sha256', 'id').update(secret).digest('hex').slice(0, 16),
    hmac: (data: string | Uint8Array) => createHmac('sha256', secret).update(data).digest('hex'),
  } as unknown as NodeKeys;
}

export function solversForTest(): SolversService {
  return createSolversService({ receipts: createReceiptsService({ nodeKeys: testNodeKeys(), clock: createFakeClock() }) });
}

const shared = solversForTest();

/** Runs a solver and returns its `result` (typed loosely for assertions). */
export async function solve(id: string, inputs: Record<string, unknown>, options?: Record<string, unknown>): Promise<any> {
  return (await shared.solve(id, inputs, options, { caller: ANONYMOUS })).result;
}

/** Runs a solver expecting a refusal; returns the CoreError. */
export async function refusal(id: string, inputs: Record<string, unknown>, options?: Record<string, unknown>): Promise<any> {
  try {
    await shared.solve(id, inputs, options, { caller: ANONYMOUS });
  } catch (err) {
    return err;
  }
  throw new Error(`${id} accepted ${JSON.stringify(inputs)}`);
}

export const rel = (a: number, b: number) => Math.abs(a - b) / Math.abs(b);

/** xorshift32 in [-1, 1): the same matrices every run (the bench's generator too). */
export function randoms(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x / 2 ** 31 - 1;
  };
}
