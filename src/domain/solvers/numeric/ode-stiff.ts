import { unprocessable } from '../solver-def.js';
import { luFactor, luSolveInPlace } from './linalg.js';
import { errorNorm, initialStep, type AdaptiveOptions, type OdeSolution, type Rhs } from './ode.js';

const D = 1 / (2 + Math.SQRT2);
const E32 = 6 + Math.SQRT2;

/**
 * Shampine's modified Rosenbrock 2(3) method (MATLAB's ode23s): L-stable, one LU of W = I - h·d·J per
 * step with J from forward differences, for stiff systems such as Van der Pol at large μ or Robertson.
 */
export async function rosenbrock23(f: Rhs, t0: number, y0: Float64Array, tEnd: number, o: AdaptiveOptions): Promise<OdeSolution> {
  const n = y0.length;
  const dir = Math.sign(tEnd - t0);
  const J = new Float64Array(n * n), W = new Float64Array(n * n), piv = new Int32Array(n);
  const F0 = new Float64Array(n), F1 = new Float64Array(n), F2 = new Float64Array(n), T = new Float64Array(n);
  const k1 = new Float64Array(n), k2 = new Float64Array(n), k3 = new Float64Array(n);
  const tmp = new Float64Array(n), ynew = new Float64Array(n), err = new Float64Array(n), fp = new Float64Array(n);
  const y = Float64Array.from(y0);
  let t = t0;
  const outputs = o.outputs ?? [tEnd];
  let next = 0;
  const times: number[] = [t0];
  const states: Float64Array[] = [Float64Array.from(y0)];
  let steps = 0, rejected = 0, evaluations = 1, maxError = 0;
  f(t, y, F0);
  let h = dir * Math.min(initialStep(f, t, y, F0, o.rtol, o.atol, dir), Math.abs(tEnd - t0), o.hMax ?? Infinity);
  evaluations++;
  const jacobian = () => {
    for (let j = 0; j < n; j++) {
      const yj = y[j]!;
      const delta = 1.4901161193847656e-8 * Math.max(Math.abs(yj), 1e-8);
      y[j] = yj + delta;
      f(t, y, fp);
      y[j] = yj;
      for (let i = 0; i < n; i++) J[i * n + j] = (fp[i]! - F0[i]!) / delta;
    }
    const dt = 1.4901161193847656e-8 * Math.max(Math.abs(t), 1e-8);
    f(t + dt, y, fp);
    for (let i = 0; i < n; i++) T[i] = (fp[i]! - F0[i]!) / dt;
    evaluations += n + 1;
  };
  jacobian();
  while (next < outputs.length) {
    if (steps + rejected >= o.maxSteps) {
      unprocessable(`The integration did not reach t = ${tEnd} within ${o.maxSteps} steps (stopped at t = ${t}); raise max_iterations or loosen the tolerance`, { t });
    }
    const target = outputs[next]!;
    let landing = false;
    if (dir * (t + h - target) >= 0 || Math.abs(target - t - h) <= 1e-12 * Math.abs(target)) {
      h = target - t;
      landing = true;
    }
    if (Math.abs(h) <= 1e-14 * Math.max(1, Math.abs(t))) unprocessable(`The step size underflowed at t = ${t}: the system is singular there`, { t });
    for (let i = 0; i < n * n; i++) W[i] = -h * D * J[i]!;
    for (let i = 0; i < n; i++) W[i * n + i] = W[i * n + i]! + 1;
    if (!luFactor(W, n, piv)) {
      h *= 0.5;
      rejected++;
      continue;
    }
    for (let i = 0; i < n; i++) k1[i] = F0[i]! + h * D * T[i]!;
    luSolveInPlace(W, n, piv, k1);
    for (let i = 0; i < n; i++) tmp[i] = y[i]! + 0.5 * h * k1[i]!;
    f(t + 0.5 * h, tmp, F1);
    for (let i = 0; i < n; i++) k2[i] = F1[i]! - k1[i]!;
    luSolveInPlace(W, n, piv, k2);
    for (let i = 0; i < n; i++) {
      k2[i] = k2[i]! + k1[i]!;
      ynew[i] = y[i]! + h * k2[i]!;
    }
    f(t + h, ynew, F2);
    for (let i = 0; i < n; i++) k3[i] = F2[i]! - E32 * (k2[i]! - F1[i]!) - 2 * (k1[i]! - F0[i]!) + h * D * T[i]!;
    luSolveInPlace(W, n, piv, k3);
    evaluations += 2;
    for (let i = 0; i < n; i++) err[i] = (h / 6) * (k1[i]! - 2 * k2[i]! + k3[i]!);
    const e = errorNorm(err, y, ynew, o.rtol, o.atol);
    if (Number.isFinite(e) && e <= 1) {
      steps++;
      maxError = Math.max(maxError, e);
      t = landing ? target : t + h;
      y.set(ynew);
      F0.set(F2);
      if (landing) {
        times.push(t);
        states.push(Float64Array.from(y));
        next++;
      }
      const grow = e === 0 ? 5 : Math.min(5, 0.8 * Math.pow(e, -1 / 3));
      h = h * Math.max(0.2, grow);
      if (o.hMax !== undefined && Math.abs(h) > o.hMax) h = dir * o.hMax;
      if (next < outputs.length) jacobian();
      if (o.ctl && (steps & 127) === 0) await o.ctl.checkpoint(Math.abs(t - t0), Math.abs(tEnd - t0), 'integrating (stiff)');
    } else {
      rejected++;
      h = h * (Number.isFinite(e) ? Math.max(0.1, 0.8 * Math.pow(e, -1 / 3)) : 0.1);
    }
  }
  return { times, states, t, y, steps, rejected, evaluations, maxError, eventHit: false };
}
