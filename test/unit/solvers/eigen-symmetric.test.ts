import { describe, expect, it } from 'vitest';
import { symmetricEigen } from '../../../src/domain/solvers/numeric/eigen-symmetric.js';
import { randoms, refusal, solve } from './solve-helper.js';

/** Q·diag(λ)·Qᵀ with Q a product of two Householder reflections: a dense symmetric matrix with known eigenvalues. */
function withEigenvalues(lambda: number[], seed: number): number[][] {
  const n = lambda.length;
  const next = randoms(seed);
  const reflect = () => {
    const u = Array.from({ length: n }, next);
    const norm = Math.hypot(...u);
    return u.map((x) => x / norm);
  };
  const u = reflect(),
    w = reflect();
  // Q = (I - 2uuᵀ)(I - 2wwᵀ); A = Q Λ Qᵀ.
  const q = Array.from({ length: n }, (_, i) =>
    Array.from({ length: n }, (_, j) => {
      let s = 0;
      for (let k = 0; k < n; k++) s += ((i === k ? 1 : 0) - 2 * u[i]! * u[k]!) * ((k === j ? 1 : 0) - 2 * w[k]! * w[j]!);
      return s;
    }),
  );
  return Array.from({ length: n }, (_, i) =>
    Array.from({ length: n }, (_, j) => {
      let s = 0;
      for (let k = 0; k < n; k++) s += q[i]![k]! * lambda[k]! * q[j]![k]!;
      return s;
    }),
  );
}

describe('eigen-symmetric (Householder + implicit QL)', () => {
  it('finds the known eigenvalues of a dense 150×150 matrix, with a repeated pair and a zero, within 1e-12 of the largest', async () => {
    const lambda = Array.from({ length: 150 }, (_, k) => (k - 74) * 0.5);
    lambda[10] = lambda[11]!; // a repeated eigenvalue
    const A = withEigenvalues(lambda, 7);
    const r = await solve('eigen-symmetric', { A }, { eigenvectors: false });
    const want = [...lambda].sort((a, b) => a - b);
    r.eigenvalues.forEach((v: number, k: number) => expect(Math.abs(v - want[k]!)).toBeLessThan(1e-12 * 38));
    expect(r.eigenvectors).toBeUndefined();
  });

  it('returns orthonormal eigenvectors with A v = λ v to 1e-12 on a random 60×60 matrix', async () => {
    const next = randoms(42);
    const n = 60;
    const A = Array.from({ length: n }, () => new Array<number>(n).fill(0));
    for (let i = 0; i < n; i++) for (let j = 0; j <= i; j++) A[i]![j] = A[j]![i] = next();
    const r = await solve('eigen-symmetric', { A });
    for (let k = 0; k < n; k++) {
      const v = r.eigenvectors[k] as number[];
      for (let i = 0; i < n; i++) {
        let av = 0;
        for (let j = 0; j < n; j++) av += A[i]![j]! * v[j]!;
        expect(Math.abs(av - r.eigenvalues[k] * v[i]!)).toBeLessThan(1e-12);
      }
      for (let m = k; m < n; m++) {
        let dot = 0;
        for (let i = 0; i < n; i++) dot += v[i]! * r.eigenvectors[m][i];
        expect(Math.abs(dot - (m === k ? 1 : 0))).toBeLessThan(1e-12);
      }
    }
  });

  it('gives the same eigenvalues with and without eigenvectors', () => {
    const A = withEigenvalues([3, -1, 4, 1, -5, 9, 2, 6], 3).flat();
    const withVectors = symmetricEigen(Float64Array.from(A), 8, true, 2 ** -52, 30);
    const valuesOnly = symmetricEigen(Float64Array.from(A), 8, false, 2 ** -52, 30);
    expect(valuesOnly.values).toEqual(withVectors.values);
  });

  it('handles 1×1, diagonal and zero matrices', async () => {
    expect((await solve('eigen-symmetric', { A: [[-2.5]] })).eigenvalues).toEqual([-2.5]);
    const diag = await solve('eigen-symmetric', {
      A: [
        [3, 0, 0],
        [0, -1, 0],
        [0, 0, 2],
      ],
    });
    expect(diag.eigenvalues).toEqual([-1, 2, 3]);
    expect(diag.eigenvectors).toEqual([
      [0, 1, 0],
      [0, 0, 1],
      [1, 0, 0],
    ]);
    expect(
      (
        await solve('eigen-symmetric', {
          A: [
            [0, 0],
            [0, 0],
          ],
        })
      ).eigenvalues,
    ).toEqual([0, 0]);
  });

  it('refuses an iteration budget too small to converge, naming the option to raise', async () => {
    const A = withEigenvalues(
      Array.from({ length: 20 }, (_, k) => k),
      5,
    );
    const err = await refusal('eigen-symmetric', { A }, { max_iterations: 1 });
    expect(err.code).toBe('UNPROCESSABLE');
    expect(err.message).toMatch(/raise max_iterations/);
  });
});
