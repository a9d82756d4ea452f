/**
 * Dense linear algebra on row-major Float64Arrays. Loops run in a fixed order so results are
 * bit-reproducible; no BLAS, no threads.
 */

/** The row at or below `k` with the largest |a[i][k]| (the first of equals); -1 when that is 0 or not finite. */
export function pivotRow(a: Float64Array, n: number, k: number): number {
  let p = k;
  let max = Math.abs(a[k * n + k]!);
  for (let i = k + 1; i < n; i++) {
    const v = Math.abs(a[i * n + k]!);
    if (v > max) {
      max = v;
      p = i;
    }
  }
  return max === 0 || !Number.isFinite(max) ? -1 : p;
}

/** LU with partial pivoting in place (Doolittle, L unit lower). Returns false when a pivot is zero. */
export function luFactor(a: Float64Array, n: number, piv: Int32Array): boolean {
  for (let i = 0; i < n; i++) piv[i] = i;
  for (let k = 0; k < n; k++) {
    const p = pivotRow(a, n, k);
    if (p < 0) return false;
    if (p !== k) {
      for (let j = 0; j < n; j++) {
        const t = a[k * n + j]!;
        a[k * n + j] = a[p * n + j]!;
        a[p * n + j] = t;
      }
      const t = piv[k]!;
      piv[k] = piv[p]!;
      piv[p] = t;
    }
    const pivot = a[k * n + k]!;
    for (let i = k + 1; i < n; i++) {
      const l = a[i * n + k]! / pivot;
      a[i * n + k] = l;
      if (l === 0) continue;
      for (let j = k + 1; j < n; j++) a[i * n + j] = a[i * n + j]! - l * a[k * n + j]!;
    }
  }
  return true;
}

/** Solves LU x = P b in place in `b`, with the factors of `luFactor`. */
export function luSolveInPlace(lu: Float64Array, n: number, piv: Int32Array, b: Float64Array): void {
  const x = new Float64Array(n);
  for (let i = 0; i < n; i++) x[i] = b[piv[i]!]!;
  for (let i = 0; i < n; i++) {
    let s = x[i]!;
    for (let j = 0; j < i; j++) s -= lu[i * n + j]! * x[j]!;
    x[i] = s;
  }
  for (let i = n - 1; i >= 0; i--) {
    let s = x[i]!;
    for (let j = i + 1; j < n; j++) s -= lu[i * n + j]! * x[j]!;
    x[i] = s / lu[i * n + i]!;
  }
  b.set(x);
}

/** Number of row swaps in a pivot vector (for the sign of the determinant). */
export function permutationSign(piv: Int32Array): number {
  const seen = new Uint8Array(piv.length);
  let sign = 1;
  for (let i = 0; i < piv.length; i++) {
    if (seen[i]) continue;
    let len = 0;
    for (let j = i; !seen[j]; j = piv[j]!) {
      seen[j] = 1;
      len++;
    }
    if (len % 2 === 0) sign = -sign;
  }
  return sign;
}

export function flatten(rows: number[][]): Float64Array {
  const m = rows.length;
  const n = rows[0]!.length;
  const out = new Float64Array(m * n);
  for (let i = 0; i < m; i++) for (let j = 0; j < n; j++) out[i * n + j] = rows[i]![j]!;
  return out;
}

export function matVec(a: Float64Array, m: number, n: number, x: Float64Array, out: Float64Array): void {
  for (let i = 0; i < m; i++) {
    let s = 0;
    for (let j = 0; j < n; j++) s += a[i * n + j]! * x[j]!;
    out[i] = s;
  }
}

export function dot(a: Float64Array, b: Float64Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

export function norm2(a: ArrayLike<number>): number {
  // Scaled to avoid overflow for large entries.
  let scale = 0;
  for (let i = 0; i < a.length; i++) scale = Math.max(scale, Math.abs(a[i]!));
  if (scale === 0) return 0;
  let s = 0;
  for (let i = 0; i < a.length; i++) s += (a[i]! / scale) ** 2;
  return scale * Math.sqrt(s);
}

/** 1-norm of a square matrix: the largest column sum of absolute values. */
export function norm1(a: Float64Array, n: number): number {
  let best = 0;
  for (let j = 0; j < n; j++) {
    let s = 0;
    for (let i = 0; i < n; i++) s += Math.abs(a[i * n + j]!);
    best = Math.max(best, s);
  }
  return best;
}

/**
 * Householder QR of an m×n matrix (m ≥ n) in place: R in the upper triangle, the reflectors below it
 * with their leading coefficients in `tau`. Returns the smallest |R_kk| / max |R_kk| (rank indicator).
 */
export function householderQr(a: Float64Array, m: number, n: number, tau: Float64Array): number {
  let rmax = 0,
    rmin = Infinity;
  for (let k = 0; k < n; k++) {
    let norm = 0;
    for (let i = k; i < m; i++) norm = Math.hypot(norm, a[i * n + k]!);
    if (norm === 0) {
      tau[k] = 0;
      rmin = 0;
      continue;
    }
    const alpha = a[k * n + k]! > 0 ? -norm : norm;
    const v0 = a[k * n + k]! - alpha;
    // v = (1, a[k+1..m-1,k] / v0); tau = -v0 / alpha.
    for (let i = k + 1; i < m; i++) a[i * n + k] = a[i * n + k]! / v0;
    tau[k] = -v0 / alpha;
    a[k * n + k] = alpha;
    for (let j = k + 1; j < n; j++) {
      let s = a[k * n + j]!;
      for (let i = k + 1; i < m; i++) s += a[i * n + k]! * a[i * n + j]!;
      s *= tau[k]!;
      a[k * n + j] = a[k * n + j]! - s;
      for (let i = k + 1; i < m; i++) a[i * n + j] = a[i * n + j]! - s * a[i * n + k]!;
    }
    rmax = Math.max(rmax, Math.abs(alpha));
    rmin = Math.min(rmin, Math.abs(alpha));
  }
  return rmax === 0 ? 0 : rmin / rmax;
}

/** Applies Qᵀ (from `householderQr`) to b in place. */
export function applyQt(qr: Float64Array, m: number, n: number, tau: Float64Array, b: Float64Array): void {
  for (let k = 0; k < n; k++) {
    if (tau[k] === 0) continue;
    let s = b[k]!;
    for (let i = k + 1; i < m; i++) s += qr[i * n + k]! * b[i]!;
    s *= tau[k]!;
    b[k] = b[k]! - s;
    for (let i = k + 1; i < m; i++) b[i] = b[i]! - s * qr[i * n + k]!;
  }
}

/** Solves R x = c for the upper triangle of an m×n QR factor. */
export function backSubstitute(qr: Float64Array, n: number, c: Float64Array): Float64Array {
  const x = new Float64Array(n);
  for (let i = n - 1; i >= 0; i--) {
    let s = c[i]!;
    for (let j = i + 1; j < n; j++) s -= qr[i * n + j]! * x[j]!;
    x[i] = s / qr[i * n + i]!;
  }
  return x;
}

/** Thomas algorithm for a tridiagonal system: sub `a` (a[0] unused), diagonal `b`, super `c`, rhs `d`. */
export function solveTridiagonal(a: Float64Array, b: Float64Array, c: Float64Array, d: Float64Array): Float64Array {
  const n = b.length;
  const cp = new Float64Array(n),
    dp = new Float64Array(n),
    x = new Float64Array(n);
  cp[0] = c[0]! / b[0]!;
  dp[0] = d[0]! / b[0]!;
  for (let i = 1; i < n; i++) {
    const m = b[i]! - a[i]! * cp[i - 1]!;
    cp[i] = c[i]! / m;
    dp[i] = (d[i]! - a[i]! * dp[i - 1]!) / m;
  }
  x[n - 1] = dp[n - 1]!;
  for (let i = n - 2; i >= 0; i--) x[i] = dp[i]! - cp[i]! * x[i + 1]!;
  return x;
}

/** Number of eigenvalues below `x` of the symmetric tridiagonal (diag d, off-diagonal e[i] = T[i][i+1]). */
export function sturmCount(d: Float64Array, e: Float64Array, x: number): number {
  let count = 0;
  let q = 1;
  for (let i = 0; i < d.length; i++) {
    const e2 = i === 0 ? 0 : e[i - 1]! * e[i - 1]!;
    q = d[i]! - x - (i === 0 ? 0 : e2 / q);
    if (q === 0) q = -1e-300;
    if (q < 0) count++;
  }
  return count;
}

/** The k-th smallest eigenvalue (0-based) of a symmetric tridiagonal matrix, by Sturm bisection. */
export function tridiagonalEigenvalue(d: Float64Array, e: Float64Array, k: number, lo: number, hi: number): { value: number; iterations: number } {
  let iterations = 0;
  while (hi - lo > 4 * Number.EPSILON * Math.max(Math.abs(lo), Math.abs(hi), 1e-300) && iterations < 200) {
    const mid = 0.5 * (lo + hi);
    if (mid === lo || mid === hi) break;
    if (sturmCount(d, e, mid) > k) hi = mid;
    else lo = mid;
    iterations++;
  }
  return { value: 0.5 * (lo + hi), iterations };
}

/** Eigenvector of a symmetric tridiagonal matrix for a computed eigenvalue, by inverse iteration. */
export function tridiagonalEigenvector(d: Float64Array, e: Float64Array, lambda: number): Float64Array {
  const n = d.length;
  const shift = lambda + 1e-10 * Math.max(1, Math.abs(lambda));
  const a = new Float64Array(n),
    b = new Float64Array(n),
    c = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    b[i] = d[i]! - shift;
    if (i > 0) a[i] = e[i - 1]!;
    if (i < n - 1) c[i] = e[i]!;
  }
  let x: Float64Array = new Float64Array(n).fill(1 / Math.sqrt(n));
  for (let it = 0; it < 3; it++) {
    x = solveTridiagonal(a, b, c, x);
    const norm = norm2(x);
    for (let i = 0; i < n; i++) x[i] = x[i]! / norm;
  }
  let big = 0;
  for (let i = 1; i < n; i++) if (Math.abs(x[i]!) > Math.abs(x[big]!)) big = i;
  if (x[big]! < 0) for (let i = 0; i < n; i++) x[i] = -x[i]!;
  return x;
}
