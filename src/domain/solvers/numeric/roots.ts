import { unprocessable } from '../solver-def.js';
import { luFactor, luSolveInPlace, norm2 } from './linalg.js';

export interface BrentResult {
  root: number;
  value: number;
  iterations: number;
  /** Width of the final bracket. */
  bracket: number;
}

/**
 * Brent's method (Brent 1973, zeroin): inverse quadratic interpolation and secant steps guarded by
 * bisection, on a bracket [a, b] where f changes sign. Converges to |b - a| ≤ 2·eps·|b| + xtol.
 */
export function brent(f: (x: number) => number, a: number, b: number, xtol: number, maxIter: number): BrentResult {
  let fa = f(a),
    fb = f(b);
  if (!Number.isFinite(fa) || !Number.isFinite(fb)) unprocessable(`The function is not finite at the bracket ends (f(${a}) = ${fa}, f(${b}) = ${fb})`);
  if (fa === 0) return { root: a, value: 0, iterations: 0, bracket: 0 };
  if (fb === 0) return { root: b, value: 0, iterations: 0, bracket: 0 };
  if (fa * fb > 0) {
    unprocessable(`f(a) and f(b) have the same sign (f(${a}) = ${fa}, f(${b}) = ${fb}); choose a bracket where the function changes sign`, { fa, fb });
  }
  let c = a,
    fc = fa,
    d = b - a,
    e = d;
  for (let iter = 1; iter <= maxIter; iter++) {
    if ((fb > 0 && fc > 0) || (fb < 0 && fc < 0)) {
      c = a;
      fc = fa;
      d = b - a;
      e = d;
    }
    if (Math.abs(fc) < Math.abs(fb)) {
      a = b;
      b = c;
      c = a;
      fa = fb;
      fb = fc;
      fc = fa;
    }
    const tol = 2 * Number.EPSILON * Math.abs(b) + 0.5 * xtol;
    const m = 0.5 * (c - b);
    if (Math.abs(m) <= tol || fb === 0) return { root: b, value: fb, iterations: iter, bracket: Math.abs(c - b) };
    if (Math.abs(e) >= tol && Math.abs(fa) > Math.abs(fb)) {
      let p: number, q: number;
      const s = fb / fa;
      if (a === c) {
        p = 2 * m * s;
        q = 1 - s;
      } else {
        const qa = fa / fc,
          r = fb / fc;
        p = s * (2 * m * qa * (qa - r) - (b - a) * (r - 1));
        q = (qa - 1) * (r - 1) * (s - 1);
      }
      if (p > 0) q = -q;
      else p = -p;
      if (2 * p < Math.min(3 * m * q - Math.abs(tol * q), Math.abs(e * q))) {
        e = d;
        d = p / q;
      } else {
        d = m;
        e = m;
      }
    } else {
      d = m;
      e = m;
    }
    a = b;
    fa = fb;
    b += Math.abs(d) > tol ? d : m > 0 ? tol : -tol;
    fb = f(b);
    if (!Number.isFinite(fb)) unprocessable(`The function is not finite at x = ${b} inside the bracket`);
  }
  return unprocessable(`Brent's method did not converge within ${maxIter} iterations`);
}

export interface NewtonResult {
  x: Float64Array;
  residual: number;
  iterations: number;
}

/**
 * Newton's method for F(x) = 0 with a forward-difference Jacobian and a backtracking line search on
 * ½‖F‖² (Armijo), so it converges from starts where the pure Newton step overshoots.
 */
export function newtonSystem(F: (x: Float64Array, out: Float64Array) => void, x0: Float64Array, tol: number, maxIter: number): NewtonResult {
  const n = x0.length;
  const x = Float64Array.from(x0);
  const fx = new Float64Array(n),
    fp = new Float64Array(n),
    trial = new Float64Array(n),
    ftrial = new Float64Array(n);
  const J = new Float64Array(n * n),
    piv = new Int32Array(n),
    step = new Float64Array(n);
  F(x, fx);
  let res = norm2(fx);
  if (!Number.isFinite(res)) unprocessable('The system is not finite at the initial guess');
  for (let iter = 1; iter <= maxIter; iter++) {
    for (let j = 0; j < n; j++) {
      const xj = x[j]!;
      const h = 1.4901161193847656e-8 * Math.max(Math.abs(xj), 1);
      x[j] = xj + h;
      F(x, fp);
      x[j] = xj;
      for (let i = 0; i < n; i++) J[i * n + j] = (fp[i]! - fx[i]!) / h;
    }
    for (let i = 0; i < n; i++) step[i] = -fx[i]!;
    if (!luFactor(J, n, piv)) unprocessable(`The Jacobian is singular at iteration ${iter}; try another initial guess`, { x: Array.from(x) });
    luSolveInPlace(J, n, piv, step);
    let lambda = 1;
    let accepted = false;
    for (let back = 0; back < 30; back++) {
      for (let i = 0; i < n; i++) trial[i] = x[i]! + lambda * step[i]!;
      F(trial, ftrial);
      const r = norm2(ftrial);
      if (Number.isFinite(r) && r * r <= (1 - 1e-4 * lambda) * res * res) {
        x.set(trial);
        fx.set(ftrial);
        res = r;
        accepted = true;
        break;
      }
      lambda *= 0.5;
    }
    if (!accepted)
      unprocessable(`Newton's method stalled at iteration ${iter} (no descent along the Newton direction); try another initial guess`, {
        x: Array.from(x),
        residual: res,
      });
    if (res <= tol || (norm2(step) * lambda <= tol * Math.max(1, norm2(x)) && res <= Math.sqrt(tol))) return { x, residual: res, iterations: iter };
  }
  return unprocessable(`Newton's method did not converge within ${maxIter} iterations (residual ${res})`, { residual: res });
}
