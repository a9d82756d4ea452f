/**
 * Test reference: eigen-symmetric's kernel as it was before the row-oriented rewrite, kept
 * verbatim (only `tridiagonalize` is now exported) so the tests can assert the fast kernel gives the same bits.
 *
 * Eigenvalues (and optionally eigenvectors) of a real symmetric matrix: Householder reduction to
 * tridiagonal form, then the implicit QL algorithm with Wilkinson-style shifts (EISPACK tred2/tql2,
 * as in JAMA; tred1/tql1 when no vectors are wanted). O(n³) with a small constant, against the
 * O(n³) per sweep of cyclic Jacobi. Row-major Float64Arrays, a fixed loop order: bit-reproducible.
 */
export interface SymmetricEigen {
  /** Ascending. */
  values: number[];
  /** Unit eigenvectors as rows, matching `values`, each with its largest component positive; absent without vectors. */
  vectors?: number[][];
  /** QL iterations over all eigenvalues. */
  iterations: number;
  /** Largest off-diagonal element at deflation: an absolute bound on what was neglected. */
  neglected: number;
}

export class EigenNoConvergence extends Error {
  constructor(
    readonly index: number,
    readonly iterations: number,
  ) {
    super(`the QL iteration did not converge for eigenvalue ${index} within ${iterations} iterations`);
  }
}

/**
 * `a` (n×n, row-major, symmetric; overwritten) → eigen-decomposition. `tol` is the relative deflation
 * threshold (an off-diagonal element is dropped when below tol × the largest |d|+|e| seen);
 * `maxIterations` bounds the QL iterations per eigenvalue.
 */
export function symmetricEigen(a: Float64Array, n: number, withVectors: boolean, tol: number, maxIterations: number): SymmetricEigen {
  const d = new Float64Array(n),
    e = new Float64Array(n);
  tridiagonalize(a, n, d, e, withVectors);
  // After accumulation `a` holds Q (columns); QL rotates columns, so work on Qᵀ to touch contiguous rows.
  let z: Float64Array | undefined;
  if (withVectors) {
    z = new Float64Array(n * n);
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) z[j * n + i] = a[i * n + j]!;
  }
  const { iterations, neglected } = implicitQl(d, e, n, z, tol, maxIterations);
  const order = Array.from({ length: n }, (_, i) => i).sort((i, j) => d[i]! - d[j]! || i - j);
  const values = order.map((i) => d[i]!);
  if (!z) return { values, iterations, neglected };
  const vectors = order.map((i) => {
    const row = Array.from(z!.subarray(i * n, i * n + n));
    let big = 0;
    for (let k = 1; k < n; k++) if (Math.abs(row[k]!) > Math.abs(row[big]!)) big = k;
    return row[big]! < 0 ? row.map((x) => -x) : row;
  });
  return { values, vectors, iterations, neglected };
}

/** Householder tridiagonalisation (tred2): diagonal in `d`, subdiagonal in e[1..n-1]; with `accumulate`, `v` ends as Q. */
export function tridiagonalize(v: Float64Array, n: number, d: Float64Array, e: Float64Array, accumulate: boolean): void {
  for (let j = 0; j < n; j++) d[j] = v[(n - 1) * n + j]!;
  for (let i = n - 1; i > 0; i--) {
    let scale = 0;
    let h = 0;
    for (let k = 0; k < i; k++) scale += Math.abs(d[k]!);
    if (scale === 0) {
      e[i] = d[i - 1]!;
      for (let j = 0; j < i; j++) {
        d[j] = v[(i - 1) * n + j]!;
        v[i * n + j] = 0;
        v[j * n + i] = 0;
      }
    } else {
      for (let k = 0; k < i; k++) {
        d[k] = d[k]! / scale;
        h += d[k]! * d[k]!;
      }
      let f = d[i - 1]!;
      let g = Math.sqrt(h);
      if (f > 0) g = -g;
      e[i] = scale * g;
      h -= f * g;
      d[i - 1] = f - g;
      for (let j = 0; j < i; j++) e[j] = 0;
      // e := A·u over the lower triangle (row j of the lower triangle is v[j][0..j], column j is v[k][j]).
      for (let j = 0; j < i; j++) {
        f = d[j]!;
        v[j * n + i] = f;
        g = e[j]! + v[j * n + j]! * f;
        for (let k = j + 1; k <= i - 1; k++) {
          const vkj = v[k * n + j]!;
          g += vkj * d[k]!;
          e[k] = e[k]! + vkj * f;
        }
        e[j] = g;
      }
      f = 0;
      for (let j = 0; j < i; j++) {
        e[j] = e[j]! / h;
        f += e[j]! * d[j]!;
      }
      const hh = f / (h + h);
      for (let j = 0; j < i; j++) e[j] = e[j]! - hh * d[j]!;
      for (let j = 0; j < i; j++) {
        f = d[j]!;
        g = e[j]!;
        for (let k = j; k <= i - 1; k++) v[k * n + j] = v[k * n + j]! - (f * e[k]! + g * d[k]!);
        d[j] = v[(i - 1) * n + j]!;
        v[i * n + j] = 0;
      }
    }
    d[i] = h;
  }
  if (accumulate) {
    for (let i = 0; i < n - 1; i++) {
      v[(n - 1) * n + i] = v[i * n + i]!;
      v[i * n + i] = 1;
      const h = d[i + 1]!;
      if (h !== 0) {
        for (let k = 0; k <= i; k++) d[k] = v[k * n + i + 1]! / h;
        for (let j = 0; j <= i; j++) {
          let g = 0;
          for (let k = 0; k <= i; k++) g += v[k * n + i + 1]! * v[k * n + j]!;
          for (let k = 0; k <= i; k++) v[k * n + j] = v[k * n + j]! - g * d[k]!;
        }
      }
      for (let k = 0; k <= i; k++) v[k * n + i + 1] = 0;
    }
    for (let j = 0; j < n; j++) {
      d[j] = v[(n - 1) * n + j]!;
      v[(n - 1) * n + j] = 0;
    }
    v[(n - 1) * n + n - 1] = 1;
  } else {
    // Without accumulation the diagonal sits on the diagonal of the working array (tred1's layout).
    for (let j = 0; j < n; j++) d[j] = v[j * n + j]!;
  }
  e[0] = 0;
}

/** Implicit QL (tql2) on diagonal d and subdiagonal e[1..n-1]; rotates the rows of `zt` (Qᵀ) when given. */
function implicitQl(
  d: Float64Array,
  e: Float64Array,
  n: number,
  zt: Float64Array | undefined,
  tol: number,
  maxIterations: number,
): { iterations: number; neglected: number } {
  for (let i = 1; i < n; i++) e[i - 1] = e[i]!;
  e[n - 1] = 0;
  let f = 0;
  let tst1 = 0;
  let iterations = 0;
  let neglected = 0;
  for (let l = 0; l < n; l++) {
    tst1 = Math.max(tst1, Math.abs(d[l]!) + Math.abs(e[l]!));
    let m = l;
    while (m < n - 1 && Math.abs(e[m]!) > tol * tst1) m++;
    if (m > l) {
      let iter = 0;
      do {
        if (++iter > maxIterations) throw new EigenNoConvergence(l, maxIterations);
        iterations++;
        let g = d[l]!;
        let p = (d[l + 1]! - g) / (2 * e[l]!);
        let r = Math.hypot(p, 1);
        if (p < 0) r = -r;
        d[l] = e[l]! / (p + r);
        d[l + 1] = e[l]! * (p + r);
        const dl1 = d[l + 1]!;
        let h = g - d[l]!;
        for (let i = l + 2; i < n; i++) d[i] = d[i]! - h;
        f += h;
        p = d[m]!;
        let c = 1,
          c2 = 1,
          c3 = 1,
          s = 0,
          s2 = 0;
        const el1 = e[l + 1]!;
        for (let i = m - 1; i >= l; i--) {
          c3 = c2;
          c2 = c;
          s2 = s;
          g = c * e[i]!;
          h = c * p;
          r = Math.hypot(p, e[i]!);
          e[i + 1] = s * r;
          s = e[i]! / r;
          c = p / r;
          p = c * d[i]! - s * g;
          d[i + 1] = h + s * (c * g + s * d[i]!);
          if (zt) {
            const ri = i * n,
              rj = (i + 1) * n;
            for (let k = 0; k < n; k++) {
              const zk1 = zt[rj + k]!,
                zk = zt[ri + k]!;
              zt[rj + k] = s * zk + c * zk1;
              zt[ri + k] = c * zk - s * zk1;
            }
          }
        }
        p = (-s * s2 * c3 * el1 * e[l]!) / dl1;
        e[l] = s * p;
        d[l] = c * p;
      } while (Math.abs(e[l]!) > tol * tst1);
    }
    neglected = Math.max(neglected, Math.abs(e[l]!));
    d[l] = d[l]! + f;
    e[l] = 0;
  }
  return { iterations, neglected };
}
