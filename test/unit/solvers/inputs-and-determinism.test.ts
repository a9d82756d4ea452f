import { describe, expect, it } from 'vitest';
import { SOLVERS } from '../../../src/domain/solvers/catalog/index.js';
import type { InputSpec, SolverDef } from '../../../src/domain/solvers/solver-def.js';
import { canonicalJson } from '../../../src/lib/canonical-json.js';
import { ANONYMOUS } from '../../../src/domain/identity/caller.js';
import { refusal, solve, solversForTest } from './solve-helper.js';

const WRONG_TYPE: Record<InputSpec['type'], unknown> = {
  number: 'twelve',
  integer: 2.5,
  boolean: 'yes',
  string: 42,
  vector: 'not a vector',
  matrix: [1, 2, 3],
  list: 'not a list',
  object: [1, 2],
};

/** An input of the solver that can be pushed out of its declared range, with such a value. */
function outOfRange(def: SolverDef): { name: string; value: unknown } {
  for (const spec of def.inputs) {
    const bound = spec.min !== null ? spec.min - (Math.abs(spec.min) + 1) : spec.max !== null ? spec.max + (Math.abs(spec.max) + 1) : undefined;
    if (bound === undefined) continue;
    if (spec.type === 'number') return { name: spec.name, value: bound };
    if (spec.type === 'integer') return { name: spec.name, value: Math.round(bound) };
    if (spec.type === 'vector') return { name: spec.name, value: Array.from({ length: spec.min_items ?? 1 }, () => bound) };
  }
  const sized = def.inputs.find((s) => (s.min_items ?? 0) > 0);
  if (sized) return { name: sized.name, value: [] };
  throw new Error(`${def.id} has no input that can be out of range`);
}

describe('bad inputs for every solver', () => {
  it('covers 32 solvers with unique ids, KO42-first operator chains and a version', () => {
    expect(SOLVERS).toHaveLength(32);
    expect(new Set(SOLVERS.map((s) => s.id)).size).toBe(32);
    for (const s of SOLVERS) {
      expect(s.operator_chain[0], s.id).toBe('KO42');
      expect(
        s.operator_chain.every((id) => /^[A-Z][A-Z0-9_]*(\.[0-9]+)?$/.test(id)),
        s.id,
      ).toBe(true);
      expect(s.version, s.id).toMatch(/^\d+\.\d+\.\d+$/);
    }
  });

  for (const def of SOLVERS) {
    describe(def.id, () => {
      const required = def.inputs.find((s) => s.required && def.example[s.name] !== undefined);

      it('refuses a missing required input with 400 naming it', async () => {
        if (!required) {
          // Solvers whose inputs all have defaults or alternatives: an empty call either runs or names what is missing.
          const empty = await solversForTest()
            .solve(def.id, {}, undefined, { caller: ANONYMOUS })
            .then(
              () => undefined,
              (e: unknown) => e as { code: string },
            );
          if (empty) expect(empty.code).toBe('VALIDATION_FAILED');
          return;
        }
        const inputs = { ...def.example };
        delete inputs[required.name];
        const err = await refusal(def.id, inputs);
        expect(err.code).toBe('VALIDATION_FAILED');
        expect(err.message).toContain(`Missing input "${required.name}"`);
      });

      it('refuses a wrongly typed input with 400 naming it', async () => {
        const target = required ?? def.inputs[0]!;
        const err = await refusal(def.id, { ...def.example, [target.name]: WRONG_TYPE[target.type] });
        expect(err.code).toBe('VALIDATION_FAILED');
        expect(err.message).toContain(`"${target.name}"`);
      });

      it('refuses an input outside its declared range with 422 naming it', async () => {
        const { name, value } = outOfRange(def);
        const err = await refusal(def.id, { ...def.example, [name]: value });
        expect(err.code).toBe('UNPROCESSABLE');
        expect(err.message).toContain(`"${name}"`);
      });

      it('refuses an unknown input and an unknown option with 400', async () => {
        const input = await refusal(def.id, { ...def.example, not_an_input: 1 });
        expect(input.code).toBe('VALIDATION_FAILED');
        expect(input.message).toContain('not_an_input');
        const option = await refusal(def.id, def.example, { not_an_option: 1 });
        expect(option.code).toBe('VALIDATION_FAILED');
        expect(option.message).toContain('not_an_option');
      });
    });
  }
});

describe('non-convergence and singular problems are 422 with the reason', () => {
  it('root-brent refuses a bracket without a sign change', async () => {
    const err = await refusal('root-brent', { f: 'x^2 + 1', a: -1, b: 1 });
    expect(err.code).toBe('UNPROCESSABLE');
    expect(err.message).toContain('same sign');
  });

  it('linear-lu refuses a singular matrix and linear-cg an indefinite one', async () => {
    expect(
      (
        await refusal('linear-lu', {
          A: [
            [1, 2],
            [2, 4],
          ],
          b: [1, 2],
        })
      ).message,
    ).toMatch(/singular/);
    expect(
      (
        await refusal('linear-cg', {
          A: [
            [1, 0],
            [0, -1],
          ],
          b: [1, 1],
        })
      ).message,
    ).toMatch(/positive definite/);
    expect(
      (
        await refusal('linear-cg', {
          A: [
            [1, 3],
            [3, 1],
          ],
          b: [1, 0],
        })
      ).message,
    ).toMatch(/positive definite/);
    expect(
      (
        await refusal('linear-cg', {
          A: [
            [2, 1],
            [0, 2],
          ],
          b: [1, 1],
        })
      ).message,
    ).toMatch(/not symmetric/);
  });

  it('ode-dopri45 refuses when the step budget runs out, and a blow-up, instead of returning NaN', async () => {
    const budget = await refusal('ode-dopri45', { variables: ['y'], equations: ['-y'], initial: [1], t_end: 1000 }, { max_iterations: 5 });
    expect(budget.code).toBe('UNPROCESSABLE');
    expect(budget.message).toContain('within 5 steps');
    const blowUp = await refusal('ode-rk4', { variables: ['y'], equations: ['y^2'], initial: [1], t_end: 5, steps: 100, samples: 2 });
    expect(blowUp.code).toBe('UNPROCESSABLE');
    expect(blowUp.message).toMatch(/non-finite/);
  });

  it('refuses malformed expressions with 400 naming the input and the position', async () => {
    const err = await refusal('quad-gauss-kronrod', { f: 'exp(-x^2', a: 0, b: 1 });
    expect(err.code).toBe('VALIDATION_FAILED');
    expect(err.message).toContain('"f"');
    const unknown = await refusal('root-brent', { f: 'x + foo', a: 0, b: 1 });
    expect(unknown.message).toContain('unknown name "foo"');
  });

  it('refuses a solve that runs past its time budget, with 422', async () => {
    const { createSolversService } = await import('../../../src/domain/solvers/solvers.service.js');
    const { createReceiptsService } = await import('../../../src/domain/receipts/receipts.service.js');
    const { createFakeClock } = await import('../../../src/lib/clock.js');
    const { testNodeKeys } = await import('./solve-helper.js');
    const tight = createSolversService({ receipts: createReceiptsService({ nodeKeys: testNodeKeys(), clock: createFakeClock() }), timeBudgetMs: 30 });
    const err = await tight
      .solve('lorenz-lyapunov', { duration: 20_000 }, undefined, { caller: ANONYMOUS })
      .catch((e: unknown) => e as { code: string; message: string });
    expect(err).toMatchObject({ code: 'UNPROCESSABLE', message: expect.stringContaining('time budget') });
  });

  it('nodal-analysis refuses a floating node', async () => {
    const err = await refusal('nodal-analysis', {
      elements: [
        { kind: 'voltage_source', a: 1, b: 0, value: 5 },
        { kind: 'resistor', a: 2, b: 3, value: 10 },
      ],
    });
    expect(err.code).toBe('UNPROCESSABLE');
    expect(err.message).toMatch(/floats|singular/);
  });
});

/** True when two JSON-like values are equal bit for bit (Object.is on every number, so -0 ≠ 0). */
function bitwiseEqual(a: unknown, b: unknown): boolean {
  if (typeof a === 'number' || typeof b === 'number') return Object.is(a, b);
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((v, i) => bitwiseEqual(v, b[i]));
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    const ka = Object.keys(a).sort(),
      kb = Object.keys(b).sort();
    return canonicalJson(ka) === canonicalJson(kb) && ka.every((k) => bitwiseEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
  }
  return a === b;
}

describe('determinism', () => {
  for (const def of SOLVERS) {
    it(`${def.id} gives bitwise equal output twice on its example, from separate service instances`, async () => {
      const first = await solversForTest().solve(def.id, def.example, undefined, { caller: ANONYMOUS });
      const second = await solversForTest().solve(def.id, structuredClone(def.example), undefined, { caller: ANONYMOUS });
      expect(bitwiseEqual(first.result, second.result)).toBe(true);
      expect(second.receipt.output_sha256).toBe(first.receipt.output_sha256);
      expect(second.receipt.input_sha256).toBe(first.receipt.input_sha256);
    });
  }

  it('hashes inputs by value, not key order', async () => {
    const a = await solversForTest().solve('root-brent', { f: 'x^2 - 2', a: 0, b: 2 }, undefined, { caller: ANONYMOUS });
    const b = await solversForTest().solve('root-brent', { b: 2, a: 0, f: 'x^2 - 2' }, undefined, { caller: ANONYMOUS });
    expect(b.receipt.input_sha256).toBe(a.receipt.input_sha256);
    expect(await solve('root-brent', { f: 'x^2 - 2', a: 0, b: 2 })).toEqual(a.result);
  });
});
