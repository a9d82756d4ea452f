import { describe, expect, it } from 'vitest';
import { randoms } from './solve-helper.js';
import { symmetricEigen, tridiagonalize } from '../../../src/domain/solvers/numeric/eigen-symmetric.js';
import { symmetricEigen as referenceEigen, tridiagonalize as referenceTridiagonalize } from './reference/eigen-jama.js';

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

/**
 * Against the EISPACK/JAMA tred2/tql2 it replaced: the same reduction and QL, so the eigenvalues agree to
 * rounding (the QL's hypot differs in the last bit); the vectors, now from inverse iteration, are held to
 * A v = λ v and orthonormality, and where an eigenvalue is well separated they must match tql2's vector.
 */
function expectLikeReference(name: string, a: Float64Array, n: number): void {
  for (const vectors of [false, true]) {
    const fast = symmetricEigen(Float64Array.from(a), n, vectors, 2 ** -52, 30);
    const ref = referenceEigen(Float64Array.from(a), n, vectors, 2 ** -52, 30);
    const largest = Math.max(...ref.values.map(Math.abs));
    fast.values.forEach((v, k) => expect(Math.abs(v - ref.values[k]!), `${name} value ${k}`).toBeLessThanOrEqual(1e-14 * largest));
    expect(fast.neglected, `${name} neglected`).toBeLessThanOrEqual(2 * Math.max(ref.neglected, 2 ** -52 * largest));
    if (!vectors) {
      expect(fast.vectors).toBeUndefined();
      continue;
    }
    expectEigenvectors(name, a, n, fast.values, fast.vectors!, 1e-13);
    const scale = Math.max(...ref.values.map(Math.abs));
    for (let k = 0; k < n; k++) {
      const gap = Math.min(k > 0 ? ref.values[k]! - ref.values[k - 1]! : Infinity, k < n - 1 ? ref.values[k + 1]! - ref.values[k]! : Infinity);
      if (gap < 1e-3 * scale) continue;
      for (let i = 0; i < n; i++) expect(Math.abs(fast.vectors![k]![i]! - ref.vectors![k]![i]!), `${name} vector ${k}`).toBeLessThan(1e-12);
    }
  }
}

/** |A v − λ v| ≤ tol × max|λ| for every pair, and |vᵢ·vⱼ − δᵢⱼ| ≤ tol. */
function expectEigenvectors(name: string, a: Float64Array, n: number, values: number[], vectors: number[][], tol: number): void {
  const scale = Math.max(...values.map(Math.abs)) || 1;
  for (let k = 0; k < n; k++) {
    const v = vectors[k]!;
    for (let i = 0; i < n; i++) {
      let av = 0;
      for (let j = 0; j < n; j++) av += a[i * n + j]! * v[j]!;
      expect(Math.abs(av - values[k]! * v[i]!), `${name} residual ${k}`).toBeLessThan(tol * scale);
    }
    for (let m = k; m < n; m++) {
      let dot = 0;
      for (let i = 0; i < n; i++) dot += v[i]! * vectors[m]![i]!;
      expect(Math.abs(dot - (m === k ? 1 : 0)), `${name} orthogonality ${k}, ${m}`).toBeLessThan(tol);
    }
  }
}

describe('eigen-symmetric kernel (row-oriented tred2, QL values, inverse-iteration vectors) against the EISPACK loops', () => {
  it('reduces to the same tridiagonal as tred2, bit for bit (the fused update and product keep every sum in order)', () => {
    const zeroed = randomSymmetric(30, 8);
    for (const k of [0, 1, 7, 15, 16, 28])
      for (let j = 0; j < 30; j++) {
        zeroed[k * 30 + j] = 0;
        zeroed[j * 30 + k] = 0;
      }
    const cases = [1, 2, 3, 4, 5, 6, 7, 9, 33, 64, 150].map((n) => ({ name: `random ${n}`, a: randomSymmetric(n, 2000 + n), n }));
    cases.push({ name: 'zero rows', a: zeroed, n: 30 });
    for (const { name, a, n } of cases) {
      const d = new Float64Array(n),
        e = new Float64Array(n),
        rd = new Float64Array(n),
        re = new Float64Array(n);
      tridiagonalize(Float64Array.from(a), n, d, e, new Float64Array(n));
      referenceTridiagonalize(Float64Array.from(a), n, rd, re, false);
      expect(d, `${name} diagonal`).toEqual(rd);
      expect(e, `${name} subdiagonal`).toEqual(re);
    }
  });

  it('gives the eigenvalues of tql2 and sound vectors on random matrices of sizes that exercise every unrolled remainder', () => {
    for (const n of [1, 2, 3, 4, 5, 6, 7, 9, 33, 64, 150]) expectLikeReference(`random ${n}`, randomSymmetric(n, 1000 + n), n);
  });

  it('gives the eigenvalues of tql2 and sound vectors on an ill-conditioned matrix (eigenvalues graded from 1 down to 1e-15, both signs)', () => {
    const lambda = Array.from({ length: 40 }, (_, k) => (k % 2 ? -1 : 1) * 10 ** (-(k * 15) / 39));
    expectLikeReference('graded 40', withEigenvalues(lambda, 11), 40);
  });

  it('gives the eigenvalues of tql2 and sound vectors on singular matrices: rank 10 of 50 (a 40-fold zero eigenvalue), and zero rows and columns', () => {
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
    expectLikeReference('rank 10 of 50', a, n);
    // Zeroed rows/columns send tred2 down its scale = 0 branch.
    const z = randomSymmetric(30, 8);
    for (const k of [0, 7, 28, 29])
      for (let j = 0; j < 30; j++) {
        z[k * 30 + j] = 0;
        z[j * 30 + k] = 0;
      }
    expectLikeReference('zero rows', z, 30);
    expectLikeReference('zero 12×12', new Float64Array(144), 12);
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

  it('gives orthonormal vectors where inverse iteration is weakest: tight clusters (both paths), close pairs, a split tridiagonal', () => {
    // Two clusters of 50 (spacing 1e-10 and 1e-4): too much Gram-Schmidt, so QL's rotations give these vectors.
    const clustered = Array.from({ length: 100 }, (_, k) => (k < 50 ? 1 + k * 1e-10 : 2 + k * 1e-4));
    const a = withEigenvalues(clustered, 9);
    const r = symmetricEigen(Float64Array.from(a), 100, true, 2 ** -52, 30);
    expectEigenvectors('clusters', a, 100, r.values, r.vectors!, 1e-13);
    // One cluster of 20 (spacing 1e-10) among 100: inverse iteration, Gram-Schmidt within the cluster.
    const some = Array.from({ length: 100 }, (_, k) => (k < 20 ? 1 + k * 1e-10 : 2 + k * 0.1));
    const b = withEigenvalues(some, 10);
    const rb20 = symmetricEigen(Float64Array.from(b), 100, true, 2 ** -52, 30);
    expectEigenvectors('cluster of 20', b, 100, rb20.values, rb20.vectors!, 1e-13);
    // Wilkinson's W21+: pairs of eigenvalues equal to about 1e-14, already tridiagonal.
    const w = new Float64Array(21 * 21);
    for (let i = 0; i < 21; i++) {
      w[i * 21 + i] = Math.abs(10 - i);
      if (i < 20) w[i * 21 + i + 1] = w[(i + 1) * 21 + i] = 1;
    }
    const rw = symmetricEigen(Float64Array.from(w), 21, true, 2 ** -52, 30);
    expectEigenvectors('W21+', w, 21, rw.values, rw.vectors!, 1e-13);
    // Two blocks with the same spectrum: each vector lives in one block (exact zeros in the other).
    const n = 24;
    const blocks = new Float64Array(n * n);
    const next = randoms(3);
    const half = Array.from({ length: 12 * 12 }, next);
    for (let i = 0; i < 12; i++)
      for (let j = 0; j < 12; j++) {
        const x = (half[i * 12 + j]! + half[j * 12 + i]!) / 2;
        blocks[i * n + j] = blocks[(i + 12) * n + j + 12] = x;
      }
    const rb = symmetricEigen(Float64Array.from(blocks), n, true, 2 ** -52, 30);
    expectEigenvectors('two blocks', blocks, n, rb.values, rb.vectors!, 1e-13);
  });

  it('gives sound vectors where the tridiagonal fades to nothing or the scale is extreme (rank one, 1e150, 1e±300)', () => {
    // A rank-one matrix reduces to couplings from 1e-14 down to 1e-177 beside zero diagonals; before they
    // were split off, inverse iteration's solves overflowed there and gave zero vectors.
    const n = 21;
    const rankOne = new Float64Array(n * n);
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) rankOne[i * n + j] = ((i % 3) + 1) * ((j % 3) + 1);
    const r1 = symmetricEigen(Float64Array.from(rankOne), n, true, 2 ** -52, 30);
    expectEigenvectors('rank one', rankOne, n, r1.values, r1.vectors!, 1e-13);
    for (const scale of [1e150, 1e300, 1e-300]) {
      const a = randomSymmetric(23, 4);
      for (let i = 0; i < a.length; i++) a[i] = a[i]! * scale;
      const r = symmetricEigen(Float64Array.from(a), 23, true, 2 ** -52, 30);
      const unscaled = symmetricEigen(randomSymmetric(23, 4), 23, false, 2 ** -52, 30);
      r.values.forEach((v, k) => expect(Math.abs(v / scale - unscaled.values[k]!), `${scale} value ${k}`).toBeLessThan(1e-14 * 8));
      const back = Float64Array.from(a, (x) => x / scale);
      expectEigenvectors(`scale ${scale}`, back, 23, unscaled.values, r.vectors!, 1e-13);
    }
  });

  it('is reproducible: the same vectors, bit for bit, on every run (the start vectors are fixed)', () => {
    const a = randomSymmetric(40, 77);
    const first = symmetricEigen(Float64Array.from(a), 40, true, 2 ** -52, 30);
    symmetricEigen(randomSymmetric(17, 1), 17, true, 2 ** -52, 30);
    expect(symmetricEigen(Float64Array.from(a), 40, true, 2 ** -52, 30)).toEqual(first);
  });
});
