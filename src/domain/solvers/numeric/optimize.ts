import type { RunControl } from '../solver-def.js';
import { unprocessable } from '../solver-def.js';

export interface MinimizeResult {
  x: number[];
  value: number;
  iterations: number;
  evaluations: number;
  /** Simplex diameter (Nelder-Mead) or gradient norm (BFGS) at the end. */
  measure: number;
}

/**
 * Nelder-Mead downhill simplex with the dimension-adaptive coefficients of Gao & Han (2012). Stops when
 * both the simplex diameter and the spread of function values fall below the tolerance.
 */
export async function nelderMead(
  f: (x: Float64Array) => number,
  x0: number[],
  step: number,
  tol: number,
  maxIter: number,
  ctl?: RunControl,
): Promise<MinimizeResult> {
  const n = x0.length;
  const alpha = 1,
    beta = 1 + 2 / n,
    gamma = 0.75 - 1 / (2 * n),
    delta = 1 - 1 / n;
  let evaluations = 0;
  const fx = (x: Float64Array) => {
    evaluations++;
    const v = f(x);
    return Number.isNaN(v) ? Infinity : v;
  };
  const simplex: Float64Array[] = [Float64Array.from(x0)];
  for (let i = 0; i < n; i++) {
    const p = Float64Array.from(x0);
    p[i] = p[i]! + (p[i] !== 0 ? step * Math.abs(p[i]!) : step);
    simplex.push(p);
  }
  let values = simplex.map(fx);
  if (!Number.isFinite(values[0]!)) unprocessable('The objective is not finite at the starting point');
  const centroid = new Float64Array(n),
    xr = new Float64Array(n),
    xe = new Float64Array(n),
    xc = new Float64Array(n);
  let iter = 0;
  for (; iter < maxIter; iter++) {
    const order = values.map((v, i) => i).sort((i, j) => values[i]! - values[j]! || i - j);
    const sorted = order.map((i) => simplex[i]!);
    values = order.map((i) => values[i]!);
    simplex.splice(0, simplex.length, ...sorted);
    const diameter = Math.max(...simplex.slice(1).map((p) => maxAbsDiff(p, simplex[0]!)));
    const spread = values[n]! - values[0]!;
    if (diameter <= tol * Math.max(1, maxAbs(simplex[0]!)) && Math.abs(spread) <= tol * Math.max(1, Math.abs(values[0]!))) {
      return { x: Array.from(simplex[0]!), value: values[0]!, iterations: iter, evaluations, measure: diameter };
    }
    centroid.fill(0);
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) centroid[j] = centroid[j]! + simplex[i]![j]! / n;
    const worst = simplex[n]!;
    for (let j = 0; j < n; j++) xr[j] = centroid[j]! + alpha * (centroid[j]! - worst[j]!);
    const fr = fx(xr);
    if (fr < values[0]!) {
      for (let j = 0; j < n; j++) xe[j] = centroid[j]! + beta * (xr[j]! - centroid[j]!);
      const fe = fx(xe);
      if (fe < fr) replace(n, xe, fe);
      else replace(n, xr, fr);
    } else if (fr < values[n - 1]!) {
      replace(n, xr, fr);
    } else {
      const outside = fr < values[n]!;
      for (let j = 0; j < n; j++) xc[j] = outside ? centroid[j]! + gamma * (xr[j]! - centroid[j]!) : centroid[j]! - gamma * (centroid[j]! - worst[j]!);
      const fc = fx(xc);
      if (fc < (outside ? fr : values[n]!)) replace(n, xc, fc);
      else {
        for (let i = 1; i <= n; i++) {
          for (let j = 0; j < n; j++) simplex[i]![j] = simplex[0]![j]! + delta * (simplex[i]![j]! - simplex[0]![j]!);
          values[i] = fx(simplex[i]!);
        }
      }
    }
    if (ctl && (iter & 511) === 511) await ctl.checkpoint(iter, maxIter, 'simplex iterations');
  }
  return unprocessable(`Nelder-Mead did not converge within ${maxIter} iterations (best value ${values[0]})`, { best: Array.from(simplex[0]!) });

  function replace(i: number, x: Float64Array, v: number) {
    simplex[i]!.set(x);
    values[i] = v;
  }
}

function maxAbs(a: Float64Array): number {
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i]!));
  return m;
}

function maxAbsDiff(a: Float64Array, b: Float64Array): number {
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i]! - b[i]!));
  return m;
}

/** Central-difference gradient with steps scaled to each coordinate. */
function gradient(f: (x: Float64Array) => number, x: Float64Array, g: Float64Array): number {
  let evals = 0;
  for (let i = 0; i < x.length; i++) {
    const xi = x[i]!;
    const h = 6.055454452393343e-6 * Math.max(Math.abs(xi), 1);
    x[i] = xi + h;
    const fp = f(x);
    x[i] = xi - h;
    const fm = f(x);
    x[i] = xi;
    g[i] = (fp - fm) / (2 * h);
    evals += 2;
  }
  return evals;
}

/**
 * BFGS quasi-Newton minimisation with central-difference gradients and a backtracking Armijo line
 * search; the inverse-Hessian update is skipped when the curvature condition fails.
 */
export async function bfgs(f: (x: Float64Array) => number, x0: number[], tol: number, maxIter: number, ctl?: RunControl): Promise<MinimizeResult> {
  const n = x0.length;
  const x = Float64Array.from(x0);
  const H = new Float64Array(n * n);
  for (let i = 0; i < n; i++) H[i * n + i] = 1;
  const g = new Float64Array(n),
    gNew = new Float64Array(n),
    p = new Float64Array(n),
    s = new Float64Array(n),
    y = new Float64Array(n);
  const xNew = new Float64Array(n),
    Hy = new Float64Array(n);
  let fx = f(x);
  if (!Number.isFinite(fx)) unprocessable('The objective is not finite at the starting point');
  let evaluations = 1 + gradient(f, x, g);
  for (let iter = 1; iter <= maxIter; iter++) {
    const gnorm = Math.sqrt(g.reduce((acc, v) => acc + v * v, 0));
    if (gnorm <= tol * Math.max(1, Math.abs(fx))) return { x: Array.from(x), value: fx, iterations: iter - 1, evaluations, measure: gnorm };
    for (let i = 0; i < n; i++) {
      let sum = 0;
      for (let j = 0; j < n; j++) sum -= H[i * n + j]! * g[j]!;
      p[i] = sum;
    }
    let slope = 0;
    for (let i = 0; i < n; i++) slope += g[i]! * p[i]!;
    if (slope >= 0) {
      // Not a descent direction: restart from steepest descent.
      H.fill(0);
      for (let i = 0; i < n; i++) {
        H[i * n + i] = 1;
        p[i] = -g[i]!;
      }
      slope = -gnorm * gnorm;
    }
    let t = 1,
      fNew = Infinity;
    for (let k = 0; k < 60; k++) {
      for (let i = 0; i < n; i++) xNew[i] = x[i]! + t * p[i]!;
      fNew = f(xNew);
      evaluations++;
      if (Number.isFinite(fNew) && fNew <= fx + 1e-4 * t * slope) break;
      t *= 0.5;
    }
    if (!(fNew <= fx + 1e-4 * t * slope)) {
      if (gnorm <= Math.sqrt(tol) * Math.max(1, Math.abs(fx))) return { x: Array.from(x), value: fx, iterations: iter, evaluations, measure: gnorm };
      unprocessable(`BFGS line search failed at iteration ${iter} (gradient norm ${gnorm}); the objective may be non-smooth: try Nelder-Mead`, {
        x: Array.from(x),
      });
    }
    evaluations += gradient(f, xNew, gNew);
    let sy = 0;
    for (let i = 0; i < n; i++) {
      s[i] = xNew[i]! - x[i]!;
      y[i] = gNew[i]! - g[i]!;
      sy += s[i]! * y[i]!;
    }
    if (sy > 1e-12 * Math.sqrt(s.reduce((a, v) => a + v * v, 0) * y.reduce((a, v) => a + v * v, 0))) {
      const rho = 1 / sy;
      let yHy = 0;
      for (let i = 0; i < n; i++) {
        let sum = 0;
        for (let j = 0; j < n; j++) sum += H[i * n + j]! * y[j]!;
        Hy[i] = sum;
        yHy += y[i]! * sum;
      }
      for (let i = 0; i < n; i++) {
        for (let j = 0; j < n; j++) {
          H[i * n + j] = H[i * n + j]! - rho * (Hy[i]! * s[j]! + s[i]! * Hy[j]!) + (rho * rho * yHy + rho) * s[i]! * s[j]!;
        }
      }
    }
    const stepSize = Math.sqrt(s.reduce((a, v) => a + v * v, 0));
    const change = Math.abs(fx - fNew);
    x.set(xNew);
    g.set(gNew);
    fx = fNew;
    if (stepSize <= 1e-15 * Math.max(1, Math.sqrt(x.reduce((a, v) => a + v * v, 0))) && change === 0) {
      return { x: Array.from(x), value: fx, iterations: iter, evaluations, measure: Math.sqrt(g.reduce((a, v) => a + v * v, 0)) };
    }
    if (ctl && (iter & 127) === 127) await ctl.checkpoint(iter, maxIter, 'BFGS iterations');
  }
  return unprocessable(`BFGS did not converge within ${maxIter} iterations`, { x: Array.from(x), value: fx });
}
