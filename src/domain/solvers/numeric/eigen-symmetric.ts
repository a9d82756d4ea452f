/**
 * Eigenvalues (and optionally eigenvectors) of a real symmetric matrix: Householder reduction to
 * tridiagonal form (EISPACK tred2's arithmetic), the implicit QL algorithm with Wilkinson-style shifts for
 * the eigenvalues (tql1, as in JAMA), then, when vectors are wanted, inverse iteration on the tridiagonal
 * (LAPACK dstein) and one pass through the Householder reflectors. tql2 would rotate the whole n×n basis on
 * every QL step (about 6n³ flops with tred2's accumulation); this takes O(n²) plus the 2n³ of the back
 * transform. Row-major Float64Arrays, fixed start vectors, a fixed loop order: bit-reproducible.
 */
import { blockEigenvectors, InverseIterationNoConvergence, inverseIterationWork } from './eigen-inverse-iteration.js';
import { backTransformRows, rank2Update, rank2UpdateAndProduct, rank2UpdateRow, rotateColumns, symmetricProduct } from './eigen-symmetric-kernels.js';

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

/** The solve's refusal when an iteration runs out; the message is the one to show the caller. */
export class EigenNoConvergence extends Error {
  constructor(
    readonly index: number,
    readonly iterations: number,
    readonly stage: 'eigenvalue' | 'eigenvector' = 'eigenvalue',
  ) {
    super(
      stage === 'eigenvalue'
        ? `The QL iteration did not converge for eigenvalue ${index} within ${iterations} iterations; raise max_iterations`
        : `Inverse iteration did not converge for eigenvector ${index} within ${iterations} iterations; eigenvectors: false still gives the eigenvalues`,
    );
  }
}

/**
 * `a` (n×n, row-major, symmetric; overwritten) → eigen-decomposition. `tol` is the relative deflation
 * threshold (an off-diagonal element is dropped when below tol × the largest |d|+|e| seen, or split off
 * beforehand when below tol × √|d_i d_{i+1}| of its neighbours); `maxIterations` bounds the QL iterations per
 * eigenvalue.
 */
export function symmetricEigen(a: Float64Array, n: number, withVectors: boolean, tol: number, maxIterations: number): SymmetricEigen {
  const d = new Float64Array(n),
    e = new Float64Array(n),
    h = new Float64Array(n);
  const sigma = rangeScale(a);
  if (sigma !== 1) for (let i = 0; i < n * n; i++) a[i] = a[i]! * sigma;
  tridiagonalize(a, n, d, e, h);
  for (let i = 1; i < n; i++) e[i - 1] = e[i]!;
  e[n - 1] = 0;
  let norm = 0;
  for (let i = 0; i < n; i++) norm = Math.max(norm, Math.abs(d[i]!) + Math.abs(e[i]!));
  // Blocks of the tridiagonal, split where a coupling is negligible against both its neighbours (LAPACK
  // dsteqr's test) or against the whole (what the QL would drop anyway): each block's eigenvalues and vectors
  // are its own, so no vector leaks across a split, and inverse iteration never meets a run of couplings
  // fading to nothing (a rank-one matrix reduces to one), whose solves would overflow.
  const starts = [0];
  let neglected = 0;
  for (let i = 0; i < n - 1; i++) {
    const c = Math.abs(e[i]!);
    if (c <= tol * norm || c <= tol * Math.sqrt(Math.abs(d[i]!)) * Math.sqrt(Math.abs(d[i + 1]!))) {
      neglected = Math.max(neglected, c);
      e[i] = 0;
      starts.push(i + 1);
    }
  }
  starts.push(n);
  const t = withVectors ? { d: Float64Array.from(d), e: Float64Array.from(e) } : undefined;
  let iterations = 0;
  for (let b = 0; b + 1 < starts.length; b++) {
    const r = implicitQl(d, e, starts[b]!, starts[b + 1]!, tol, maxIterations);
    iterations += r.iterations;
    neglected = Math.max(neglected, r.neglected);
  }
  const order = Array.from({ length: n }, (_, i) => i).sort((i, j) => d[i]! - d[j]! || i - j);
  const values = order.map((i) => d[i]! / sigma);
  neglected /= sigma;
  if (!t) return { values, iterations, neglected };
  let x: Float64Array;
  try {
    x = tridiagonalVectors(t.d, t.e, starts, d, order, n, tol, maxIterations);
  } catch (err) {
    if (err instanceof InverseIterationNoConvergence) throw new EigenNoConvergence(err.index, err.iterations, 'eigenvector');
    throw err;
  }
  // Row i of a's lower triangle is free after the reduction: it takes reflector i, stored in column i.
  for (let i = 1; i < n; i++) for (let k = 0; k < i; k++) a[i * n + k] = a[k * n + i]!;
  backTransformRows(x, n, n, a, h);
  const vectors = new Array<number[]>(n);
  for (let r = 0; r < n; r++) {
    const o = r * n;
    let big = 0;
    for (let k = 1; k < n; k++) if (Math.abs(x[o + k]!) > Math.abs(x[o + big]!)) big = k;
    const sign = x[o + big]! < 0 ? -1 : 1;
    const row = new Array<number>(n);
    for (let k = 0; k < n; k++) row[k] = sign * x[o + k]!;
    vectors[r] = row;
  }
  return { values, vectors, iterations, neglected };
}

/**
 * A power of two that brings max|a| into [2^-486, 2^485] (LAPACK dsyev's rmin and rmax, about 1e±146), or 1
 * when it is there already or a is zero: far outside, the reduction's sums and the solves of inverse
 * iteration under- or overflow. A power of two scales without rounding, so the eigenvalues come back exactly.
 */
function rangeScale(a: Float64Array): number {
  let big = 0;
  for (let i = 0; i < a.length; i++) big = Math.max(big, Math.abs(a[i]!));
  if (big === 0 || (big >= 2 ** -486 && big <= 2 ** 485)) return 1;
  // At most 2^1023: a largest element that is subnormal still lands well inside the range.
  return 2 ** Math.min(1023, -Math.round(Math.log2(big)));
}

/**
 * The eigenvectors of the tridiagonal (diagonal d, couplings e, blocks from `starts`) for the eigenvalues
 * `values` (by index, in `order` ascending), as rows of an n×n array in that order, block by block.
 */
function tridiagonalVectors(
  d: Float64Array,
  e: Float64Array,
  starts: number[],
  values: Float64Array,
  order: number[],
  n: number,
  tol: number,
  maxIterations: number,
): Float64Array {
  const x = new Float64Array(n * n);
  const work = inverseIterationWork(n);
  const block = new Int32Array(n);
  for (let b = 0; b + 1 < starts.length; b++) block.fill(b, starts[b]!, starts[b + 1]!);
  // Each block's eigenvalues ascending, with the row (its rank overall) its vector goes to.
  const lambdas = new Float64Array(n),
    rows = new Int32Array(n),
    filled = Int32Array.from(starts);
  for (let r = 0; r < n; r++) {
    const at = filled[block[order[r]!]!]!++;
    lambdas[at] = values[order[r]!]!;
    rows[at] = r;
  }
  for (let b = 0; b + 1 < starts.length; b++) {
    const lo = starts[b]!,
      hi = starts[b + 1]!;
    const done = blockEigenvectors(d, e, lo, hi - lo, lambdas.subarray(lo, hi), rows.subarray(lo, hi), x, n, work);
    if (!done) rotatedBlockVectors(d, e, lo, hi, order, x, n, tol, maxIterations);
  }
  return x;
}

/**
 * A block's vectors by tql2 instead (QL rotating an identity), for a block whose clusters would cost inverse
 * iteration more Gram-Schmidt than the rotations: its eigenvalues come out as the values pass had them (same
 * arithmetic), vector p (column p) belongs to d-index lo + p, whose rank in `order` is its row.
 */
function rotatedBlockVectors(
  d: Float64Array,
  e: Float64Array,
  lo: number,
  hi: number,
  order: number[],
  x: Float64Array,
  n: number,
  tol: number,
  maxIterations: number,
): void {
  const size = hi - lo;
  const z = new Float64Array(size * size);
  for (let k = 0; k < size; k++) z[k * size + k] = 1;
  implicitQl(d.slice(lo, hi), e.slice(lo, hi), 0, size, tol, maxIterations, z);
  const rank = new Int32Array(n);
  order.forEach((i, r) => (rank[i] = r));
  for (let p = 0; p < size; p++) {
    const o = rank[lo + p]! * n + lo;
    for (let k = 0; k < size; k++) x[o + k] = z[k * size + p]!;
  }
}

/**
 * Householder tridiagonalisation (tred2's reduction, tred1's layout): diagonal in `d`, subdiagonal in
 * e[1..n-1], reflector i (I − u·uᵀ/h[i], u in column i above the diagonal, h[i] = 0 for none) left in `v`.
 * EISPACK's loops walk columns of the lower triangle (stride n in row-major); here every inner loop walks a
 * row instead, with each sum still taken over the same terms in the same order, so the results are bit for
 * bit those of tred2 as JAMA has it. Step i's update finishes row i−1 first, which gives step i−1's reflector,
 * so the rest of the update can form step i−1's product A·u in the same pass.
 */
export function tridiagonalize(v: Float64Array, n: number, d: Float64Array, e: Float64Array, hs: Float64Array): void {
  const next = new Float64Array(n),
    product = new Float64Array(n);
  for (let j = 0; j < n; j++) d[j] = v[(n - 1) * n + j]!;
  let h = 0;
  // Whether the previous step already left this one's reflector in d, its h in h and A·u in e.
  let ready = false;
  for (let i = n - 1; i > 0; i--) {
    if (!ready) {
      h = householderVector(d, e, i);
      if (h === 0) {
        for (let j = 0; j < i; j++) {
          d[j] = v[(i - 1) * n + j]!;
          v[i * n + j] = 0;
          v[j * n + i] = 0;
        }
        hs[i] = 0;
        continue;
      }
      for (let j = 0; j < i; j++) v[j * n + i] = d[j]!;
      symmetricProduct(v, n, i, d, e);
    }
    ready = false;
    // q = p − K·u with p = A·u / h and K = uᵀp / 2h, in e.
    let f = 0;
    for (let j = 0; j < i; j++) {
      e[j] = e[j]! / h;
      f += e[j]! * d[j]!;
    }
    const hh = f / (h + h);
    for (let j = 0; j < i; j++) e[j] = e[j]! - hh * d[j]!;
    hs[i] = h;
    for (let j = 0; j < i; j++) v[i * n + j] = 0;
    rank2UpdateRow(v, n, i - 1, d, e);
    if (i > 1) {
      for (let j = 0; j < i - 1; j++) next[j] = v[(i - 1) * n + j]!;
      // e[i−1] (q's last entry) is spent once row i−1 is updated: it can take the next subdiagonal.
      const h1 = householderVector(next, e, i - 1);
      if (h1 !== 0) {
        for (let j = 0; j < i - 1; j++) v[j * n + i - 1] = next[j]!;
        rank2UpdateAndProduct(v, n, i - 1, d, e, next, product);
        for (let j = 0; j < i - 1; j++) {
          d[j] = next[j]!;
          e[j] = product[j]!;
        }
        h = h1;
        ready = true;
        continue;
      }
      rank2Update(v, n, i - 1, d, e);
    }
    for (let j = 0; j < i; j++) d[j] = v[(i - 1) * n + j]!;
  }
  for (let j = 0; j < n; j++) d[j] = v[j * n + j]!;
  e[0] = 0;
}

/**
 * tred2's reflector for row i (its lower part in u[0..i−1], overwritten by the scaled Householder vector):
 * sets e[i] to the subdiagonal and returns h = uᵀu / 2, or 0 when the row is zero (nothing to reflect).
 */
function householderVector(u: Float64Array, e: Float64Array, i: number): number {
  let scale = 0;
  for (let k = 0; k < i; k++) scale += Math.abs(u[k]!);
  if (scale === 0) {
    e[i] = u[i - 1]!;
    return 0;
  }
  let h = 0;
  for (let k = 0; k < i; k++) {
    u[k] = u[k]! / scale;
    h += u[k]! * u[k]!;
  }
  const f0 = u[i - 1]!;
  let g0 = Math.sqrt(h);
  if (f0 > 0) g0 = -g0;
  e[i] = scale * g0;
  h -= f0 * g0;
  u[i - 1] = f0 - g0;
  return h;
}

/**
 * Implicit QL (tql1) on the block lo..hi−1 of diagonal d and couplings e (e[i] between i and i+1, e[hi−1] = 0):
 * the eigenvalues, in place in d. On the whole matrix as one block, tql2's arithmetic for d to the bit. With
 * `z` (hi×hi, lo = 0) each sweep's rotations are also applied to z's columns, as tql2 (the vectors do not
 * change the arithmetic of d).
 */
function implicitQl(
  d: Float64Array,
  e: Float64Array,
  lo: number,
  hi: number,
  tol: number,
  maxIterations: number,
  z?: Float64Array,
): { iterations: number; neglected: number } {
  const cs = z ? new Float64Array(hi) : undefined,
    sn = z ? new Float64Array(hi) : undefined;
  let f = 0;
  let tst1 = 0;
  let iterations = 0;
  let neglected = 0;
  for (let l = lo; l < hi; l++) {
    tst1 = Math.max(tst1, Math.abs(d[l]!) + Math.abs(e[l]!));
    let m = l;
    while (m < hi - 1 && Math.abs(e[m]!) > tol * tst1) m++;
    if (m > l) {
      let iter = 0;
      do {
        if (++iter > maxIterations) throw new EigenNoConvergence(l, maxIterations);
        iterations++;
        let g = d[l]!;
        let p = (d[l + 1]! - g) / (2 * e[l]!);
        let r = hypot(p, 1);
        if (p < 0) r = -r;
        d[l] = e[l]! / (p + r);
        d[l + 1] = e[l]! * (p + r);
        const dl1 = d[l + 1]!;
        let h = g - d[l]!;
        for (let i = l + 2; i < hi; i++) d[i] = d[i]! - h;
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
          r = hypot(p, e[i]!);
          e[i + 1] = s * r;
          s = e[i]! / r;
          c = p / r;
          p = c * d[i]! - s * g;
          d[i + 1] = h + s * (c * g + s * d[i]!);
          if (cs) {
            cs[i] = c;
            sn![i] = s;
          }
        }
        if (z) rotateColumns(z, hi, l, m, cs!, sn!);
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

/**
 * √(x² + y²) without overflow or underflow. V8's Math.hypot takes any number of arguments and sums them with
 * compensation, about twice the cost of this in the QL loop, which calls it once per rotation; this is within
 * an ulp of it.
 */
function hypot(x: number, y: number): number {
  const ax = Math.abs(x),
    ay = Math.abs(y);
  const big = ax > ay ? ax : ay;
  if (big > 2 ** 500 || big < 2 ** -500) {
    if (big === 0) return 0;
    const p = ax / big,
      q = ay / big;
    return big * Math.sqrt(p * p + q * q);
  }
  return Math.sqrt(x * x + y * y);
}
