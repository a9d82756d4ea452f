/**
 * Eigenvectors of a symmetric tridiagonal block from its eigenvalues by inverse iteration, as LAPACK's dstein
 * does it (dsyevx's vector routine, after dstebz's eigenvalues): LU of T − λI with partial pivoting (dlagtf),
 * a few solves with tiny pivots perturbed (dlagts, job −1), modified Gram-Schmidt against the earlier vectors
 * of a cluster (eigenvalues closer than 1e-3 of the block's norm), then two more iterations past the stopping
 * test. O(n) per solve, so O(n²) for all vectors of an n×n block, against tql2's O(n³) of rotations.
 */

/** dstein's machine precision (LAPACK's 'Precision': ulp). */
const ULP = 2 ** -52;
/** dlagts' relative machine epsilon ('Epsilon'). */
const EPSILON = 2 ** -53;
const SAFE_MIN = 2 ** -1022;
const BIG = 1 / SAFE_MIN;
const MAX_ITERATIONS = 5;
/** Iterations after the stopping test is met, as dstein: they settle the vector's last digits. */
const EXTRA_ITERATIONS = 2;

export class InverseIterationNoConvergence extends Error {
  readonly iterations = MAX_ITERATIONS;
  constructor(readonly index: number) {
    super(`inverse iteration did not converge for eigenvector ${index} within ${MAX_ITERATIONS} iterations`);
  }
}

/** Scratch arrays for one block at a time, allocated once for the largest block. */
export interface InverseIterationWork {
  diag: Float64Array;
  upper: Float64Array;
  lower: Float64Array;
  upper2: Float64Array;
  swapped: Uint8Array;
  x: Float64Array;
  /** A fixed xorshift32 state: the same start vectors on every run, so the same bits. */
  seed: { state: number };
}

export function inverseIterationWork(n: number): InverseIterationWork {
  return {
    diag: new Float64Array(n),
    upper: new Float64Array(n),
    lower: new Float64Array(n),
    upper2: new Float64Array(n),
    swapped: new Uint8Array(n),
    x: new Float64Array(n),
    seed: { state: 0x9e3779b9 },
  };
}

/**
 * The unit eigenvectors of the block lo..lo+size−1 of the tridiagonal (diagonal d, e[i] coupling i and i+1),
 * for `lambdas` (the block's eigenvalues, ascending). Vector j goes to row rows[j] of `out` (row-major,
 * `stride` columns), at columns lo..lo+size−1; the row's other columns are left as they are (zero). False
 * (nothing written) when the block's clusters are too large for inverse iteration to be the cheaper method.
 */
export function blockEigenvectors(
  d: Float64Array,
  e: Float64Array,
  lo: number,
  size: number,
  lambdas: ArrayLike<number>,
  rows: ArrayLike<number>,
  out: Float64Array,
  stride: number,
  work: InverseIterationWork,
): boolean {
  if (size === 1) {
    for (let j = 0; j < lambdas.length; j++) out[rows[j]! * stride + lo] = 1;
    return true;
  }
  let norm = Math.max(Math.abs(d[lo]!) + Math.abs(e[lo]!), Math.abs(d[lo + size - 1]!) + Math.abs(e[lo + size - 2]!));
  for (let i = lo + 1; i < lo + size - 1; i++) norm = Math.max(norm, Math.abs(d[i]!) + Math.abs(e[i - 1]!) + Math.abs(e[i]!));
  const clusterGap = 1e-3 * norm;
  // Gram-Schmidt against the rest of a cluster costs O(size) per earlier member per iteration: past about
  // size²/10 member pairs, QL's rotations (tql2) are cheaper, and they handle clusters by construction.
  let pairs = 0;
  for (let j = 1, start = 0; j < lambdas.length; j++) {
    if (lambdas[j]! - lambdas[j - 1]! > clusterGap) start = j;
    pairs += j - start;
  }
  if (pairs > (size * size) / 10) return false;
  const stopAt = Math.sqrt(0.1 / size);
  const { diag, upper, lower, upper2, swapped, x, seed } = work;
  let previous = 0;
  let clusterStart = 0;
  for (let j = 0; j < lambdas.length; j++) {
    let shift = lambdas[j]!;
    // Equal or nearly equal eigenvalues would give the same vector: move the shift by a few ulps.
    if (j > 0) {
      const perturbation = 10 * Math.abs(ULP * shift);
      if (shift - previous < perturbation) shift = previous + perturbation;
    }
    // The start vector, its largest magnitude carried along: each pass below also yields the next one's.
    let big = 0;
    for (let k = 0; k < size; k++) {
      x[k] = nextRandom(seed);
      big = Math.max(big, Math.abs(x[k]!));
    }
    factorShifted(d, e, lo, diag, upper, lower, upper2, swapped, size, shift);
    const tol = solveTolerance(diag, upper, upper2, size);
    if (j > 0 && Math.abs(shift - previous) > clusterGap) clusterStart = j;
    let iterations = 0;
    let settled = 0;
    for (;;) {
      if (++iterations > MAX_ITERATIONS) throw new InverseIterationNoConvergence(rows[j]!);
      const scale = (size * norm * Math.max(ULP, Math.abs(diag[size - 1]!))) / big;
      big = solveShifted(diag, upper, lower, upper2, swapped, size, x, scale, tol);
      if (clusterStart < j) {
        for (let i = clusterStart; i < j; i++) {
          const o = rows[i]! * stride + lo;
          let dot = 0;
          for (let k = 0; k < size; k++) dot += x[k]! * out[o + k]!;
          for (let k = 0; k < size; k++) x[k] = x[k]! - dot * out[o + k]!;
        }
        big = Math.abs(x[largest(x, size)]!);
      }
      if (big < stopAt) continue;
      if (++settled < EXTRA_ITERATIONS + 1) continue;
      break;
    }
    // The 2-norm by way of x / max|x|, so a large iterate cannot overflow the sum of squares.
    const peak = Math.abs(x[largest(x, size)]!);
    let sum = 0;
    for (let k = 0; k < size; k++) {
      const y = x[k]! / peak;
      sum += y * y;
    }
    const unit = 1 / (peak * Math.sqrt(sum));
    const o = rows[j]! * stride + lo;
    for (let k = 0; k < size; k++) out[o + k] = x[k]! * unit;
    previous = shift;
  }
  return true;
}

function nextRandom(seed: { state: number }): number {
  let s = seed.state;
  s ^= s << 13;
  s >>>= 0;
  s ^= s >>> 17;
  s ^= s << 5;
  s >>>= 0;
  seed.state = s;
  return s / 2 ** 31 - 1;
}

/** Index of the first element of largest magnitude (BLAS idamax). */
function largest(x: Float64Array, n: number): number {
  let at = 0;
  let big = Math.abs(x[0]!);
  for (let k = 1; k < n; k++) {
    const v = Math.abs(x[k]!);
    if (v > big) {
      big = v;
      at = k;
    }
  }
  return at;
}

/**
 * dlagtf: T − λI = P·L·U, T the block of d and e from lo (read as the factorisation reaches it, so no copy
 * first). On exit U's diagonal, first and second superdiagonals are in diag, upper and upper2, L's
 * multipliers in lower, and swapped[k] says whether rows k and k+1 were interchanged.
 */
function factorShifted(
  d: Float64Array,
  e: Float64Array,
  lo: number,
  diag: Float64Array,
  upper: Float64Array,
  lower: Float64Array,
  upper2: Float64Array,
  swapped: Uint8Array,
  n: number,
  lambda: number,
): void {
  diag[0] = d[lo]! - lambda;
  upper[0] = e[lo]!;
  let scale1 = Math.abs(diag[0]) + Math.abs(upper[0]);
  for (let k = 0; k < n - 1; k++) {
    diag[k + 1] = d[lo + k + 1]! - lambda;
    lower[k] = e[lo + k]!;
    if (k < n - 2) upper[k + 1] = e[lo + k + 1]!;
    let scale2 = Math.abs(lower[k]!) + Math.abs(diag[k + 1]!);
    if (k < n - 2) scale2 += Math.abs(upper[k + 1]!);
    const pivot1 = diag[k] === 0 ? 0 : Math.abs(diag[k]!) / scale1;
    if (lower[k] === 0) {
      swapped[k] = 0;
      scale1 = scale2;
      if (k < n - 2) upper2[k] = 0;
    } else if (Math.abs(lower[k]!) / scale2 <= pivot1) {
      swapped[k] = 0;
      scale1 = scale2;
      lower[k] = lower[k]! / diag[k]!;
      diag[k + 1] = diag[k + 1]! - lower[k]! * upper[k]!;
      if (k < n - 2) upper2[k] = 0;
    } else {
      swapped[k] = 1;
      const multiplier = diag[k]! / lower[k]!;
      diag[k] = lower[k]!;
      const next = diag[k + 1]!;
      diag[k + 1] = upper[k]! - multiplier * next;
      if (k < n - 2) {
        upper2[k] = upper[k + 1]!;
        upper[k + 1] = -multiplier * upper2[k]!;
      }
      upper[k] = next;
      lower[k] = multiplier;
    }
  }
  upper[n - 1] = 0;
  upper2[n - 1] = 0;
  if (n > 1) upper2[n - 2] = 0;
}

/** dlagts' default perturbation for job −1: eps × the largest element of U. */
function solveTolerance(diag: Float64Array, upper: Float64Array, upper2: Float64Array, n: number): number {
  let tol = Math.abs(diag[0]!);
  if (n > 1) tol = Math.max(tol, Math.abs(diag[1]!), Math.abs(upper[0]!));
  for (let k = 2; k < n; k++) tol = Math.max(tol, Math.abs(diag[k]!), Math.abs(upper[k - 1]!), Math.abs(upper2[k - 2]!));
  tol *= EPSILON;
  return tol === 0 ? EPSILON : tol;
}

/**
 * dlagts, job −1: y ← (T − λI)⁻¹(scale·y) from the factors of `factorShifted`, a pivot too small for the quotient to
 * stay finite being moved away from zero by tol, 2·tol, 4·tol… (that is what makes inverse iteration at an
 * exact eigenvalue work). Returns the largest |y| of the result.
 */
function solveShifted(
  diag: Float64Array,
  upper: Float64Array,
  lower: Float64Array,
  upper2: Float64Array,
  swapped: Uint8Array,
  n: number,
  y: Float64Array,
  scale: number,
  tol: number,
): number {
  y[0] = y[0]! * scale;
  let prev = y[0];
  for (let k = 1; k < n; k++) {
    const yk = y[k]! * scale;
    const sw = swapped[k - 1] === 1;
    const top = sw ? yk : prev;
    const bot = sw ? prev : yk;
    y[k - 1] = top;
    prev = bot - lower[k - 1]! * top;
    y[k] = prev;
  }
  let big = 0;
  // y[k+1] and y[k+2] ride in locals; U's entries past its end are zero (factorShifted), so the last two rows
  // take the same expression and the same bits.
  let y1 = 0,
    y2 = 0;
  for (let k = n - 1; k >= 0; k--) {
    let t = y[k]! - upper[k]! * y1 - upper2[k]! * y2;
    let ak = diag[k]!;
    let perturbation = ak < 0 ? -tol : tol;
    for (;;) {
      const absak = Math.abs(ak);
      if (absak < 1) {
        if (absak < SAFE_MIN) {
          if (absak === 0 || Math.abs(t) * SAFE_MIN > absak) {
            ak += perturbation;
            perturbation *= 2;
            continue;
          }
          t *= BIG;
          ak *= BIG;
        } else if (Math.abs(t) > absak * BIG) {
          ak += perturbation;
          perturbation *= 2;
          continue;
        }
      }
      break;
    }
    const yk = t / ak;
    y[k] = yk;
    y2 = y1;
    y1 = yk;
    big = Math.max(big, Math.abs(yk));
  }
  return big;
}
