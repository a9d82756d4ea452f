import { EigenNoConvergence, symmetricEigen, type SymmetricEigen } from '../numeric/eigen-symmetric.js';
import { estimateInverseNorm1, exactInverseNorm1 } from '../numeric/condition-number.js';
import { applyQt, backSubstitute, dot, flatten, householderQr, luSolveInPlace, matVec, norm1, norm2, permutationSign } from '../numeric/linalg.js';
import { luFactorBlocked } from '../numeric/lu-blocked.js';
import { input, invalid, MAX_ITERATIONS, TOLERANCE, unprocessable, type SolverDef } from '../solver-def.js';

function square(name: string, rows: number[][]): number {
  const n = rows.length;
  if (rows[0]!.length !== n) invalid(name, `must be square; it is ${n}×${rows[0]!.length}`);
  return n;
}

function rhs(name: string, b: number[], n: number): Float64Array {
  if (b.length !== n) invalid(name, `needs ${n} entries to match the matrix`);
  return Float64Array.from(b);
}

export const linearLu: SolverDef = {
  id: 'linear-lu',
  name: 'Linear system, LU with partial pivoting',
  domain: 'linear_algebra',
  method:
    'Blocked LU factorisation with partial (row) pivoting (LAPACK dgetrf scheme), forward and back substitution; 1-norm condition number estimated as LAPACK dgecon does (Hager-Higham) or computed exactly',
  operator_chain: ['KO42'],
  unit: '',
  version: '2.0.0',
  description:
    'Solves A x = b for a square matrix by Gaussian elimination with row pivoting. Also returns the determinant, the residual ‖Ax − b‖ and the 1-norm condition number (estimated as LAPACK does, or exact on request), so you can judge how many digits to trust. Singular or numerically singular matrices are refused.',
  inputs: [
    input('A', 'matrix', 'Square coefficient matrix, row by row', { min_items: 1, max_items: 400 }),
    input('b', 'vector', 'Right-hand side', { min_items: 1, max_items: 400 }),
  ],
  options: [
    input('condition_number_method', 'string', 'estimated: as LAPACK dgecon, a lower bound, usually exact, O(n²); exact: from the inverse, 2n³ flops', {
      default: 'estimated',
      enum: ['estimated', 'exact'],
    }),
  ],
  example: {
    A: [
      [2, 1, -1],
      [-3, -1, 2],
      [-2, 1, 2],
    ],
    b: [8, -11, -3],
  },
  async run(a, o, ctl) {
    const rows = a.mat('A');
    const n = square('A', rows);
    const b = rhs('b', a.vec('b'), n);
    const A = flatten(rows);
    const lu = Float64Array.from(A);
    const piv = new Int32Array(n);
    if (!luFactorBlocked(lu, n, piv)) unprocessable('The matrix is singular (a zero pivot appeared); the system has no unique solution');
    const x = Float64Array.from(b);
    luSolveInPlace(lu, n, piv, x);
    const method = o.str('condition_number_method');
    const invNorm =
      method === 'exact'
        ? await exactInverseNorm1(lu, n, piv, (done, total) => ctl.checkpoint(done, total, 'condition number'))
        : estimateInverseNorm1(lu, n, piv);
    const cond = norm1(A, n) * invNorm;
    if (!Number.isFinite(cond) || cond > 1 / Number.EPSILON) {
      unprocessable(
        `The matrix is numerically singular (1-norm condition number ${cond.toExponential(3)}${method === 'exact' ? '' : ', estimated,'} exceeds 1/eps); the solution would carry no correct digits`,
        { condition_number: Number.isFinite(cond) ? cond : null, condition_number_method: method },
      );
    }
    let logDet = 0,
      sign = permutationSign(piv);
    for (let i = 0; i < n; i++) {
      const d = lu[i * n + i]!;
      if (d < 0) sign = -sign;
      logDet += Math.log(Math.abs(d));
    }
    const r = new Float64Array(n);
    matVec(A, n, n, x, r);
    for (let i = 0; i < n; i++) r[i] = r[i]! - b[i]!;
    const det = sign * Math.exp(logDet);
    return {
      result: {
        x: Array.from(x),
        determinant: Number.isFinite(det) ? det : null,
        log_abs_determinant: logDet,
        determinant_sign: sign,
        residual_norm: norm2(r),
        condition_number: cond,
        condition_number_method: method,
      },
      converged: true,
      iterations: null,
      error_estimate: cond * Number.EPSILON,
    };
  },
};

export const linearCg: SolverDef = {
  id: 'linear-cg',
  name: 'Symmetric positive-definite system, conjugate gradient',
  domain: 'linear_algebra',
  method: 'Preconditioned conjugate gradient (Jacobi preconditioner)',
  operator_chain: ['KO42'],
  unit: '',
  version: '1.0.0',
  description:
    'Solves A x = b iteratively for a symmetric positive-definite matrix (stiffness, conductance and Laplacian matrices), converging in at most n steps in exact arithmetic and often far fewer. Refused when A is not symmetric or turns out indefinite.',
  inputs: [
    input('A', 'matrix', 'Symmetric positive-definite matrix, row by row', { min_items: 1, max_items: 500 }),
    input('b', 'vector', 'Right-hand side', { min_items: 1, max_items: 500 }),
    input('x0', 'vector', 'Initial guess (default zeros)', { required: false, min_items: 1, max_items: 500 }),
    input('preconditioner', 'string', 'Preconditioner', { default: 'jacobi', enum: ['jacobi', 'none'] }),
  ],
  options: [TOLERANCE(1e-12, 1e-15), MAX_ITERATIONS(10_000, 1_000_000)],
  example: {
    A: [
      [4, -1, 0, 0],
      [-1, 4, -1, 0],
      [0, -1, 4, -1],
      [0, 0, -1, 3],
    ],
    b: [15, 10, 10, 10],
  },
  async run(a, o, ctl) {
    const rows = a.mat('A');
    const n = square('A', rows);
    const b = rhs('b', a.vec('b'), n);
    const A = flatten(rows);
    let scale = 0;
    for (let i = 0; i < n * n; i++) scale = Math.max(scale, Math.abs(A[i]!));
    for (let i = 0; i < n; i++) {
      for (let j = i + 1; j < n; j++) {
        if (Math.abs(A[i * n + j]! - A[j * n + i]!) > 1e-12 * scale)
          unprocessable(`A is not symmetric: A[${i}][${j}] = ${A[i * n + j]} but A[${j}][${i}] = ${A[j * n + i]}; use linear-lu`, { row: i, column: j });
      }
    }
    const M = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const d = A[i * n + i]!;
      if (d <= 0) unprocessable(`A is not positive definite: diagonal entry A[${i}][${i}] = ${d}`, { row: i });
      M[i] = a.str('preconditioner') === 'jacobi' ? 1 / d : 1;
    }
    const x = a.has('x0') ? rhs('x0', a.vec('x0'), n) : new Float64Array(n);
    const r = new Float64Array(n),
      z = new Float64Array(n),
      p = new Float64Array(n),
      Ap = new Float64Array(n);
    matVec(A, n, n, x, r);
    for (let i = 0; i < n; i++) r[i] = b[i]! - r[i]!;
    const bnorm = norm2(b) || 1;
    const tol = o.num('tolerance'),
      maxIt = o.int('max_iterations');
    for (let i = 0; i < n; i++) z[i] = M[i]! * r[i]!;
    p.set(z);
    let rz = dot(r, z);
    const history: number[] = [norm2(r) / bnorm];
    let it = 0;
    while (history[history.length - 1]! > tol) {
      if (it >= maxIt) unprocessable(`CG did not reach the tolerance within ${maxIt} iterations (relative residual ${history[history.length - 1]})`);
      matVec(A, n, n, p, Ap);
      const pAp = dot(p, Ap);
      if (!(pAp > 0)) unprocessable(`A is not positive definite (pᵀAp = ${pAp} at iteration ${it + 1}); use linear-lu`);
      const alpha = rz / pAp;
      for (let i = 0; i < n; i++) {
        x[i] = x[i]! + alpha * p[i]!;
        r[i] = r[i]! - alpha * Ap[i]!;
      }
      for (let i = 0; i < n; i++) z[i] = M[i]! * r[i]!;
      const rzNew = dot(r, z);
      const beta = rzNew / rz;
      rz = rzNew;
      for (let i = 0; i < n; i++) p[i] = z[i]! + beta * p[i]!;
      it++;
      history.push(norm2(r) / bnorm);
      if ((it & 63) === 0) await ctl.checkpoint(it, maxIt, 'CG iterations');
    }
    // The recurrence residual drifts from the true one in floating point; report the true one.
    matVec(A, n, n, x, Ap);
    for (let i = 0; i < n; i++) Ap[i] = b[i]! - Ap[i]!;
    const trueResidual = norm2(Ap) / bnorm;
    return {
      result: {
        x: Array.from(x),
        relative_residual: trueResidual,
        residual_history: history.length > 200 ? history.filter((_, i) => i % Math.ceil(history.length / 200) === 0) : history,
      },
      converged: true,
      iterations: it,
      error_estimate: trueResidual,
    };
  },
};

export const eigenSymmetric: SolverDef = {
  id: 'eigen-symmetric',
  name: 'Eigenvalues of a symmetric matrix, Householder and QL',
  domain: 'linear_algebra',
  method: 'Householder tridiagonalisation (tred2), implicit QL with shifts for the eigenvalues (tql1), inverse iteration for the eigenvectors (dstein)',
  operator_chain: ['KO42', 'QM22'],
  unit: '',
  version: '3.0.0',
  description:
    'Computes all eigenvalues (ascending) and, unless eigenvectors is false, orthonormal eigenvectors of a real symmetric matrix: normal modes, principal stresses, inertia axes, covariance principal components. O(n³): Householder reduction to tridiagonal form, implicit QL for the eigenvalues, inverse iteration with Gram-Schmidt within clusters for the eigenvectors; eigenvalues are accurate to about machine precision times the largest |eigenvalue|.',
  inputs: [input('A', 'matrix', 'Real symmetric matrix, row by row', { min_items: 1, max_items: 150 })],
  options: [
    input('tolerance', 'number', 'Relative deflation threshold: an off-diagonal element below tolerance × the matrix scale is dropped', {
      default: 2.220446049250313e-16,
      min: 1e-17,
      max: 1e-6,
    }),
    input('max_iterations', 'integer', 'QL iterations allowed per eigenvalue; the solve is refused when they run out', { default: 30, min: 1, max: 1000 }),
    input('eigenvectors', 'boolean', 'Also compute the eigenvectors (about three times the work of the eigenvalues alone)', { default: true }),
  ],
  example: {
    A: [
      [2, -1, 0],
      [-1, 2, -1],
      [0, -1, 2],
    ],
  },
  async run(a, o) {
    const rows = a.mat('A');
    const n = square('A', rows);
    const A = flatten(rows);
    let scale = 0;
    for (let i = 0; i < n * n; i++) scale = Math.max(scale, Math.abs(A[i]!));
    for (let i = 0; i < n; i++) {
      for (let j = i + 1; j < n; j++) {
        if (Math.abs(A[i * n + j]! - A[j * n + i]!) > 1e-12 * scale) unprocessable(`A is not symmetric: A[${i}][${j}] ≠ A[${j}][${i}]`, { row: i, column: j });
      }
    }
    let r: SymmetricEigen;
    try {
      r = symmetricEigen(A, n, o.bool('eigenvectors'), o.num('tolerance'), o.int('max_iterations'));
    } catch (err) {
      if (err instanceof EigenNoConvergence) unprocessable(err.message);
      throw err;
    }
    const result = r.vectors
      ? { eigenvalues: r.values, eigenvectors: r.vectors, iterations: r.iterations }
      : { eigenvalues: r.values, iterations: r.iterations };
    return { result, converged: true, iterations: r.iterations, error_estimate: r.neglected };
  },
};

export const leastSquaresQr: SolverDef = {
  id: 'least-squares-qr',
  name: 'Least squares fit, Householder QR',
  domain: 'linear_algebra',
  method: 'Householder QR factorisation of the design matrix (no normal equations)',
  operator_chain: ['KO42', 'MET5'],
  unit: '',
  version: '1.0.0',
  description:
    'Minimises ‖A c − b‖ for an overdetermined system, either given A and b, or as a polynomial fit of the given degree to points (x, y). Returns the coefficients with standard errors, the residual norm and R². QR avoids squaring the condition number as the normal equations would.',
  inputs: [
    input('A', 'matrix', 'Design matrix (m rows ≥ n columns); give A and b, or x, y and degree', { required: false, min_items: 1, max_items: 5000 }),
    input('b', 'vector', 'Observations, one per row of A', { required: false, min_items: 1, max_items: 5000 }),
    input('x', 'vector', 'Abscissae for a polynomial fit', { required: false, min_items: 1, max_items: 5000 }),
    input('y', 'vector', 'Ordinates for a polynomial fit', { required: false, min_items: 1, max_items: 5000 }),
    input('degree', 'integer', 'Polynomial degree; coefficients come lowest power first', { required: false, min: 0, max: 20 }),
  ],
  options: [],
  example: { x: [0, 1, 2, 3, 4, 5], y: [1.1, 2.9, 5.2, 7.1, 8.8, 11.2], degree: 1 },
  async run(a) {
    let rows: number[][], b: number[];
    if (a.has('A')) {
      if (a.has('x') || a.has('y') || a.has('degree')) invalid('A', 'give either A and b, or x, y and degree, not both');
      if (!a.has('b')) invalid('b', 'is required with A');
      rows = a.mat('A');
      b = a.vec('b');
      if (b.length !== rows.length) invalid('b', `needs ${rows.length} entries, one per row of A`);
    } else {
      if (!a.has('x') || !a.has('y') || !a.has('degree')) invalid('x', 'give A and b, or x, y and degree');
      const xs = a.vec('x');
      b = a.vec('y');
      if (b.length !== xs.length) invalid('y', `needs ${xs.length} entries, one per x`);
      const d = a.int('degree');
      rows = xs.map((x) => Array.from({ length: d + 1 }, (_, k) => x ** k));
    }
    const m = rows.length,
      n = rows[0]!.length;
    if (m < n) unprocessable(`The system is underdetermined: ${m} equations for ${n} unknowns; give at least ${n} rows`);
    const qr = flatten(rows);
    const tau = new Float64Array(n);
    const rcond = householderQr(qr, m, n, tau);
    if (rcond < 1e-13)
      unprocessable(`The design matrix is rank-deficient (smallest/largest |R_kk| = ${rcond.toExponential(2)}); remove dependent columns or lower the degree`);
    const qtb = Float64Array.from(b);
    applyQt(qr, m, n, tau, qtb);
    const c = backSubstitute(qr, n, qtb);
    const residual = norm2(qtb.subarray(n));
    const mean = b.reduce((s, v) => s + v, 0) / m;
    const total = b.reduce((s, v) => s + (v - mean) ** 2, 0);
    const sigma2 = m > n ? (residual * residual) / (m - n) : 0;
    // Standard errors: σ²·diag((RᵀR)⁻¹) = σ²·(row norms of R⁻¹)².
    const rinv = new Float64Array(n * n);
    for (let j = 0; j < n; j++) {
      const e = new Float64Array(n);
      e[j] = 1;
      const col = backSubstitute(qr, n, e);
      for (let i = 0; i < n; i++) rinv[i * n + j] = col[i]!;
    }
    const stderr = Array.from({ length: n }, (_, i) => Math.sqrt(sigma2 * Array.from(rinv.subarray(i * n, i * n + n)).reduce((s, v) => s + v * v, 0)));
    return {
      result: {
        coefficients: Array.from(c),
        standard_errors: stderr,
        residual_norm: residual,
        r_squared: total > 0 ? 1 - (residual * residual) / total : 1,
        rank_indicator: rcond,
      },
      converged: true,
      iterations: null,
      error_estimate: residual,
    };
  },
};
