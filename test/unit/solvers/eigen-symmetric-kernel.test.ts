import { describe, expect, it } from 'vitest';
import { randoms } from './solve-helper.js';
import { symmetricEigen } from '../../../src/domain/solvers/numeric/eigen-symmetric.js';
import { symmetricEigen as referenceEigen } from './reference/eigen-jama.js';

function randomSymmetric(n: number, seed: number): Float64Array {
  const next = randoms(seed);
  const a = new Float64Array(n * n);
  for (let i = 0; i < n; i++) for (let j = 0; j <= i; j++) a[i * n + j] = a[j * n + i] = next();
  return a;
}

/** Q·diag(λ)·Qᵀ with Q = I − 2uuᵀ (u random unit): dense, symmetric, eigenvalues λ. */
function withEigenvalues(lambda: number[], seed: number): Float64Array {
  const n = lambda.length;
  const next = randoms(seed);
  const u = Array.from({ length: n }, next);
  const norm = Math.hypot(...u);
  const q = (i: number, k: number) => (i === k ? 1 : 0) - (2 * u[i]! * u[k]!) / (norm * norm);
  const a = new Float64Array(n * n);
  for (let i = 0; i < n; i++)
    for (let j = 0; j <= i; j++) {
      let s = 0;
      for (let k = 0; k < n; k++) s += q(i, k) * lambda[k]! * q(j, k);
      a[i * n + j] = a[j * n + i] = s;
    }
  return a;
}

/** The row-oriented kernel against the EISPACK/JAMA loops it replaced: identical bits, with and without vectors. */
function expectSameBits(name: string, a: Float64Array, n: number): void {
  for (const vectors of [false, true]) {
    const fast = symmetricEigen(Float64Array.from(a), n, vectors, 2 ** -52, 30);
    const ref = referenceEigen(Float64Array.from(a), n, vectors, 2 ** -52, 30);
    expect(fast.values, `${name} values`).toEqual(ref.values);
    expect(fast.iterations, `${name} iterations`).toBe(ref.iterations);
    expect(fast.neglected, `${name} neglected`).toBe(ref.neglected);
    if (vectors) expect(fast.vectors, `${name} vectors`).toEqual(ref.vectors);
    else expect(fast.vectors).toBeUndefined();
  }
}

describe('eigen-symmetric kernel (row-oriented tred2, dlasr-style rotations) against the EISPACK loops', () => {
  it('gives the same bits on random matrices of sizes that exercise every unrolled remainder', () => {
    for (const n of [1, 2, 3, 4, 5, 6, 7, 9, 33, 64, 150]) expectSameBits(`random ${n}`, randomSymmetric(n, 1000 + n), n);
  });

  it('gives the same bits on an ill-conditioned matrix (eigenvalues graded from 1 down to 1e-15, both signs)', () => {
    const lambda = Array.from({ length: 40 }, (_, k) => (k % 2 ? -1 : 1) * 10 ** (-(k * 15) / 39));
    expectSameBits('graded 40', withEigenvalues(lambda, 11), 40);
  });

  it('gives the same bits on singular matrices: rank 10 of 50 (a 40-fold zero eigenvalue), and zero rows and columns', () => {
    const n = 50,
      r = 10;
    const next = randoms(5);
    const b = Array.from({ length: n * r }, next);
    const a = new Float64Array(n * n);
    for (let i = 0; i < n; i++)
      for (let j = 0; j < n; j++) {
        let s = 0;
        for (let k = 0; k < r; k++) s += b[i * r + k]! * b[j * r + k]!;
        a[i * n + j] = s;
      }
    expectSameBits('rank 10 of 50', a, n);
    // Zeroed rows/columns send tred2 down its scale = 0 branch.
    const z = randomSymmetric(30, 8);
    for (const k of [0, 7, 28, 29])
      for (let j = 0; j < 30; j++) {
        z[k * 30 + j] = 0;
        z[j * 30 + k] = 0;
      }
    expectSameBits('zero rows', z, 30);
    expectSameBits('zero 12×12', new Float64Array(144), 12);
  });

  it('still answers A v = λ v with orthonormal vectors on the rank-deficient matrix (a 40-fold eigenvalue)', () => {
    const n = 50,
      r = 10;
    const next = randoms(5);
    const b = Array.from({ length: n * r }, next);
    const a = new Float64Array(n * n);
    for (let i = 0; i < n; i++)
      for (let j = 0; j < n; j++) {
        let s = 0;
        for (let k = 0; k < r; k++) s += b[i * r + k]! * b[j * r + k]!;
        a[i * n + j] = s;
      }
    const res = symmetricEigen(Float64Array.from(a), n, true, 2 ** -52, 30);
    const scale = Math.max(...res.values.map(Math.abs));
    for (let k = 0; k < n; k++) {
      const v = res.vectors![k]!;
      for (let i = 0; i < n; i++) {
        let av = 0;
        for (let j = 0; j < n; j++) av += a[i * n + j]! * v[j]!;
        expect(Math.abs(av - res.values[k]! * v[i]!)).toBeLessThan(1e-13 * scale);
      }
      for (let m = k; m < n; m++) {
        let dot = 0;
        for (let i = 0; i < n; i++) dot += v[i]! * res.vectors![m]![i]!;
        expect(Math.abs(dot - (m === k ? 1 : 0))).toBeLessThan(1e-13);
      }
    }
  });
});
