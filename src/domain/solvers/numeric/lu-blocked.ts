/**
 * Blocked LU with partial pivoting (LAPACK dgetrf's right-looking scheme) on a row-major n×n Float64Array.
 * Same factors and pivot convention as `luFactor` (PA = LU, L unit lower, `piv[i]` the original row now at
 * row i), so `luSolveInPlace` and `permutationSign` apply unchanged. Pivots follow the same rule as the
 * unblocked code (largest magnitude in the column, over all remaining rows, first one on a tie); only the
 * order in which the trailing updates are summed differs, so the factors agree with the unblocked ones to
 * rounding (and the pivot order too, unless two candidates tie to within rounding).
 */
import { gemmSubtract } from './dense-kernels.js';
import { pivotRow } from './linalg.js';

/**
 * Panel width. Measured on 200×200 (the bench matrix): 8-20 are within noise of each other and 2.5-3× faster
 * than unblocked; 32 and wider get slower because the unblocked panel (strided column reads) grows, and a
 * two-level panel (32 outer, 8 or 16 inner) measured no faster: the GEMM tile is most of the time (about
 * 1.2 of 1.8 ms).
 */
export const LU_BLOCK = 16;

/** Factors `a` in place. Returns false when a pivot is zero or not finite (the matrix is singular to working precision). */
export function luFactorBlocked(a: Float64Array, n: number, piv: Int32Array, nb = LU_BLOCK): boolean {
  for (let i = 0; i < n; i++) piv[i] = i;
  for (let k0 = 0; k0 < n; k0 += nb) {
    const ke = Math.min(k0 + nb, n);
    if (!factorPanel(a, n, piv, k0, ke)) return false;
    if (ke === n) break;
    // U12 ← L11⁻¹ A12 (unit lower triangular solve, row by row: contiguous).
    for (let r = k0 + 1; r < ke; r++) {
      const rr = r * n;
      for (let q = k0; q < r; q++) {
        const l = a[rr + q]!;
        if (l === 0) continue;
        const rq = q * n;
        for (let j = ke; j < n; j++) a[rr + j] = a[rr + j]! - l * a[rq + j]!;
      }
    }
    // A22 ← A22 − L21·U12.
    const m = n - ke;
    gemmSubtract(
      m,
      m,
      ke - k0,
      { data: a, offset: ke * n + k0, stride: n },
      { data: a, offset: k0 * n + ke, stride: n },
      { data: a, offset: ke * n + ke, stride: n },
    );
  }
  return true;
}

/** Unblocked elimination of columns k0..ke-1 over rows k0..n-1; row swaps move whole rows (contiguous in row-major). */
function factorPanel(a: Float64Array, n: number, piv: Int32Array, k0: number, ke: number): boolean {
  for (let k = k0; k < ke; k++) {
    const p = pivotRow(a, n, k);
    if (p < 0) return false;
    const rk = k * n;
    if (p !== k) {
      const rp = p * n;
      for (let j = 0; j < n; j++) {
        const t = a[rk + j]!;
        a[rk + j] = a[rp + j]!;
        a[rp + j] = t;
      }
      const t = piv[k]!;
      piv[k] = piv[p]!;
      piv[p] = t;
    }
    const pivot = a[rk + k]!;
    for (let i = k + 1; i < n; i++) {
      const ri = i * n;
      const l = a[ri + k]! / pivot;
      a[ri + k] = l;
      if (l === 0) continue;
      for (let j = k + 1; j < ke; j++) a[ri + j] = a[ri + j]! - l * a[rk + j]!;
    }
  }
  return true;
}
