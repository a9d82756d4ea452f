import { describe, expect, it } from 'vitest';
import { estimateInverseNorm1, exactInverseNorm1, luSolveTransposeInPlace } from '../../../src/domain/solvers/numeric/condition-number.js';
import { gemmSubtract } from '../../../src/domain/solvers/numeric/dense-kernels.js';
import { luFactor, luSolveInPlace, norm1 } from '../../../src/domain/solvers/numeric/linalg.js';
import { luFactorBlocked } from '../../../src/domain/solvers/numeric/lu-blocked.js';
import { randoms, refusal, solve } from './solve-helper.js';

const random = (n: number, seed: number) => Float64Array.from({ length: n * n }, randoms(seed));
const hilbert = (n: number) => Float64Array.from({ length: n * n }, (_, k) => 1 / (Math.floor(k / n) + (k % n) + 1));
const maxAbs = (a: Float64Array) => a.reduce((m, v) => Math.max(m, Math.abs(v)), 0);
const rows = (a: Float64Array, n: number) => Array.from({ length: n }, (_, i) => Array.from(a.subarray(i * n, i * n + n)));

/** Factors with both kernels; returns the factors, pivots and success of each. */
function both(a: Float64Array, n: number) {
  const plain = Float64Array.from(a),
    blocked = Float64Array.from(a);
  const pp = new Int32Array(n),
    pb = new Int32Array(n);
  return { plain, blocked, pp, pb, okPlain: luFactor(plain, n, pp), okBlocked: luFactorBlocked(blocked, n, pb) };
}

describe('gemmSubtract (4×4 register tiles, packed operands)', () => {
  it('matches the triple loop on sub-matrices with offsets, strides and sizes that do not fill a tile', () => {
    for (const [m, n, k] of [
      [1, 1, 1],
      [3, 5, 2],
      [4, 4, 4],
      [9, 7, 16],
      [17, 22, 5],
    ] as const) {
      const next = randoms(m * 100 + n * 10 + k);
      const lda = k + 3,
        ldb = n + 2,
        ldc = n + 5;
      const A = Float64Array.from({ length: 2 + m * lda }, next);
      const B = Float64Array.from({ length: 1 + k * ldb }, next);
      const C = Float64Array.from({ length: 4 + m * ldc }, next);
      const want = Float64Array.from(C);
      for (let i = 0; i < m; i++)
        for (let j = 0; j < n; j++) {
          let s = 0;
          for (let p = 0; p < k; p++) s += A[2 + i * lda + p]! * B[1 + p * ldb + j]!;
          want[4 + i * ldc + j] = want[4 + i * ldc + j]! - s;
        }
      gemmSubtract(m, n, k, { data: A, offset: 2, stride: lda }, { data: B, offset: 1, stride: ldb }, { data: C, offset: 4, stride: ldc });
      // Same p order inside each entry, so the same bits; entries outside the block untouched.
      expect(Array.from(C)).toEqual(Array.from(want));
    }
  });
});

describe('blocked LU against the unblocked kernel', () => {
  it('gives the same pivots and factors within 1e-13 relative on random matrices of many sizes', () => {
    for (const n of [1, 2, 5, 16, 17, 33, 64, 101, 203]) {
      const r = both(random(n, n + 1), n);
      expect(r.okPlain && r.okBlocked).toBe(true);
      expect(Array.from(r.pb)).toEqual(Array.from(r.pp));
      let diff = 0;
      for (let i = 0; i < n * n; i++) diff = Math.max(diff, Math.abs(r.blocked[i]! - r.plain[i]!));
      expect(diff).toBeLessThanOrEqual(1e-13 * Math.max(1, maxAbs(r.plain)));
    }
  });

  it('solves an ill-conditioned system (Hilbert 10×10, cond₁ ≈ 3.5e13) to the same solution within cond·eps', () => {
    const n = 10;
    const a = hilbert(n);
    const r = both(a, n);
    expect(r.okPlain && r.okBlocked).toBe(true);
    const xp = new Float64Array(n).fill(1),
      xb = new Float64Array(n).fill(1);
    luSolveInPlace(r.plain, n, r.pp, xp);
    luSolveInPlace(r.blocked, n, r.pb, xb);
    const cond = norm1(a, n) * exactInverseNorm1Sync(r.plain, n, r.pp);
    expect(cond).toBeGreaterThan(1e13);
    for (let i = 0; i < n; i++) expect(Math.abs(xb[i]! - xp[i]!)).toBeLessThan(cond * Number.EPSILON * maxAbs(xp));
  });

  it('refuses an exactly singular matrix (a zero column past the first block) as the unblocked kernel does', () => {
    const n = 40;
    const a = random(n, 9);
    for (let i = 0; i < n; i++) a[i * n + 37] = 0;
    const r = both(a, n);
    expect(r.okPlain).toBe(false);
    expect(r.okBlocked).toBe(false);
  });
});

/** exactInverseNorm1 without the await (no progress callback: it never yields). */
function exactInverseNorm1Sync(lu: Float64Array, n: number, piv: Int32Array): number {
  let best = 0;
  for (let j = 0; j < n; j++) {
    const col = new Float64Array(n);
    col[j] = 1;
    luSolveInPlace(lu, n, piv, col);
    best = Math.max(
      best,
      col.reduce((s, v) => s + Math.abs(v), 0),
    );
  }
  return best;
}

describe('1-norm condition number estimate (dlacn2)', () => {
  it('solves with Aᵀ through the LU factors', () => {
    const n = 37;
    const a = random(n, 5);
    const lu = Float64Array.from(a);
    const piv = new Int32Array(n);
    luFactorBlocked(lu, n, piv);
    const b = Float64Array.from({ length: n }, randoms(6));
    const x = Float64Array.from(b);
    luSolveTransposeInPlace(lu, n, piv, x);
    for (let j = 0; j < n; j++) {
      let s = 0;
      for (let i = 0; i < n; i++) s += a[i * n + j]! * x[i]!;
      expect(Math.abs(s - b[j]!)).toBeLessThan(1e-11);
    }
  });

  it('reproduces LAPACK dgecon on the 200×200 bench matrix (SciPy 1.17.1: 1/rcond = 3370.828770896456; exact 3778.903417806386)', async () => {
    const n = 200;
    const a = random(n, 200);
    const lu = Float64Array.from(a);
    const piv = new Int32Array(n);
    luFactorBlocked(lu, n, piv);
    const anorm = norm1(a, n);
    expect(Math.abs(anorm * estimateInverseNorm1(lu, n, piv) - 3370.828770896456)).toBeLessThan(1e-9 * 3370);
    expect(Math.abs(anorm * (await exactInverseNorm1(lu, n, piv)) - 3778.903417806386)).toBeLessThan(1e-9 * 3778);
  });

  it('computes the exact norm by blocks as the n column solves do, across block edges and on ill-conditioned matrices', async () => {
    for (const n of [1, 5, 31, 32, 33, 70, 101]) {
      const lu = random(n, 7 * n);
      const piv = new Int32Array(n);
      luFactorBlocked(lu, n, piv);
      const want = exactInverseNorm1Sync(lu, n, piv);
      expect(Math.abs((await exactInverseNorm1(lu, n, piv)) - want), `random ${n}`).toBeLessThan(1e-12 * want);
    }
    // Hilbert 9: cond₁ ≈ 1.1e12, so the two summation orders may differ in the last ~12 digits' worth.
    const h = hilbert(9);
    const piv = new Int32Array(9);
    luFactorBlocked(h, 9, piv);
    const want = exactInverseNorm1Sync(h, 9, piv);
    expect(Math.abs((await exactInverseNorm1(h, 9, piv)) - want)).toBeLessThan(1e-3 * want);
    const calls: number[] = [];
    await exactInverseNorm1(random(70, 3), 70, new Int32Array(70), (done, total) => {
      calls.push(done);
      expect(total).toBe(140);
    });
    expect(calls).toEqual([32, 64, 70, 102, 134, 140]);
  });

  it('is a lower bound within a factor 3 of the exact value on random, graded and ill-conditioned matrices', async () => {
    const cases: [string, Float64Array, number][] = [['1×1', Float64Array.of(-4), 1]];
    for (const n of [2, 7, 30, 90]) cases.push([`random ${n}`, random(n, 31 * n), n]);
    for (const n of [4, 8, 11]) cases.push([`Hilbert ${n}`, hilbert(n), n]);
    // Rows graded over 12 orders of magnitude.
    const g = random(25, 77);
    for (let i = 0; i < 25; i++) for (let j = 0; j < 25; j++) g[i * 25 + j] = g[i * 25 + j]! * 10 ** (-i / 2);
    cases.push(['graded 25', g, 25]);
    for (const [name, a, n] of cases) {
      const lu = Float64Array.from(a);
      const piv = new Int32Array(n);
      expect(luFactorBlocked(lu, n, piv), name).toBe(true);
      const est = estimateInverseNorm1(lu, n, piv);
      const exact = await exactInverseNorm1(lu, n, piv);
      expect(est, name).toBeLessThanOrEqual(exact * (1 + 1e-12));
      expect(est, name).toBeGreaterThanOrEqual(exact / 3);
    }
  });
});

describe('linear-lu condition_number_method', () => {
  const n = 60;
  const a = random(n, 60);
  const A = rows(a, n);
  const b = new Array<number>(n).fill(1);

  it('answers the estimate by default and says so; exact on request, equal to the column sums of the inverse', async () => {
    const est = await solve('linear-lu', { A, b });
    const exact = await solve('linear-lu', { A, b }, { condition_number_method: 'exact' });
    expect(est.condition_number_method).toBe('estimated');
    expect(exact.condition_number_method).toBe('exact');
    const lu = Float64Array.from(a);
    const piv = new Int32Array(n);
    luFactor(lu, n, piv);
    const want = norm1(a, n) * exactInverseNorm1Sync(lu, n, piv);
    expect(Math.abs(exact.condition_number - want)).toBeLessThan(1e-10 * want);
    expect(est.condition_number).toBeLessThanOrEqual(exact.condition_number * (1 + 1e-12));
    expect(est.condition_number).toBeGreaterThanOrEqual(exact.condition_number / 3);
    // The solution does not depend on the method.
    expect(est.x).toEqual(exact.x);
  });

  it('keeps the solution of the blocked kernel within cond·eps of the unblocked one, with a small residual', async () => {
    const r = await solve('linear-lu', { A, b });
    const lu = Float64Array.from(a);
    const piv = new Int32Array(n);
    luFactor(lu, n, piv);
    const x = Float64Array.from(b);
    luSolveInPlace(lu, n, piv, x);
    for (let i = 0; i < n; i++) expect(Math.abs(r.x[i] - x[i]!)).toBeLessThan(r.condition_number * Number.EPSILON * maxAbs(x) * 10);
    expect(r.residual_norm).toBeLessThan(1e-12 * n);
  });

  it('refuses an unknown method with 400 naming the option, and a numerically singular matrix with 422 either way', async () => {
    const bad = await refusal('linear-lu', { A, b }, { condition_number_method: 'guess' });
    expect(bad.status).toBe(400);
    expect(bad.message).toContain('condition_number_method');
    // Row 2 = row 0 + row 1: singular in exact arithmetic, rounding leaves a tiny pivot.
    const s = random(30, 3);
    for (let j = 0; j < 30; j++) s[2 * 30 + j] = s[j]! + s[30 + j]!;
    for (const method of ['estimated', 'exact']) {
      const err = await refusal('linear-lu', { A: rows(s, 30), b: new Array<number>(30).fill(1) }, { condition_number_method: method });
      expect(err.code, method).toBe('UNPROCESSABLE');
      expect(err.message, method).toMatch(/singular/);
    }
  });
});
