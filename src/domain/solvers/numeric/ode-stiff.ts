import { unprocessable } from '../solver-def.js';
import { luFactor, luSolveInPlace } from './linalg.js';
import { errorNorm, initialStep, type AdaptiveOptions, type OdeSolution, type Rhs } from './ode.js';

/**
 * RODAS4 (Hairer & Wanner, Solving ODEs II, §IV.7; coefficients of their `rodas.f`), written as
 *   (I/(h·γ) − J)·k_i = f(t + α_i·h, y + Σ_j a_ij·k_j) + Σ_j (c_ij/h)·k_j + γ_i·h·∂f/∂t.
 * Six stages, order 4, L-stable and stiffly accurate: the solution is y + Σ m_j·k_j and the last stage
 * k_6 is the difference to the embedded order-3 solution, so the error estimate bounds the embedded
 * solution's error while the order-4 one is kept (local extrapolation). That keeps the global error
 * near the requested tolerance, where a 2(3) pair (ode23s) drifts to hundreds of times it at 1e-10.
 */
const GAMMA = 0.25;
const ALPHA = [0, 0.386, 0.21, 0.63, 1, 1];
const GAMMA_I = [0.25, -0.1043, 0.1035, -0.0362, 0, 0];
const A: number[][] = [
  [],
  [1.544],
  [0.9466785280815826, 0.2557011698983284],
  [3.314825187068521, 2.896124015972201, 0.9986419139977817],
  [1.221224509226641, 6.019134481288629, 12.53708332932087, -0.687886036105895],
  [1.221224509226641, 6.019134481288629, 12.53708332932087, -0.687886036105895, 1],
];
const C: number[][] = [
  [],
  [-5.6688],
  [-2.430093356833875, -0.2063599157091915],
  [-0.1073529058151375, -9.594562251023355, -20.47028614809616],
  [7.496443313967647, -10.24680431464352, -33.99990352819905, 11.7089089320616],
  [8.083246795921522, -7.981132988064893, -31.52159432874371, 16.31930543123136, -6.058818238834054],
];
const M = [1.221224509226641, 6.019134481288629, 12.53708332932087, -0.687886036105895, 1, 1];
const STAGES = 6;
/** Step-size control: safety factor and bounds on the change per step (as Hairer's code). */
const SAFETY = 0.9,
  GROW_MAX = 6,
  SHRINK_MIN = 0.2,
  ORDER = 4;

/**
 * RODAS4 with a forward-difference Jacobian, refreshed every accepted step: for stiff systems such as
 * Robertson's kinetics or Van der Pol at large μ. `rtol`/`atol` bound the local error of each step.
 */
export async function rodas4(f: Rhs, t0: number, y0: Float64Array, tEnd: number, o: AdaptiveOptions): Promise<OdeSolution> {
  const n = y0.length;
  const dir = Math.sign(tEnd - t0);
  const J = new Float64Array(n * n),
    W = new Float64Array(n * n),
    piv = new Int32Array(n);
  const F0 = new Float64Array(n),
    Fs = new Float64Array(n),
    T = new Float64Array(n);
  const K = Array.from({ length: STAGES }, () => new Float64Array(n));
  const tmp = new Float64Array(n),
    ynew = new Float64Array(n),
    fp = new Float64Array(n);
  const y = Float64Array.from(y0);
  let t = t0;
  const outputs = o.outputs ?? [tEnd];
  let next = 0;
  const times: number[] = [t0];
  const states: Float64Array[] = [Float64Array.from(y0)];
  let steps = 0,
    rejected = 0,
    evaluations = 1,
    maxError = 0;
  let rejectedLast = false;
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
      unprocessable(
        `The integration did not reach t = ${tEnd} within ${o.maxSteps} steps (stopped at t = ${t}); raise max_iterations or loosen the tolerance`,
        { t },
      );
    }
    const target = outputs[next]!;
    let landing = false;
    if (dir * (t + h - target) >= 0 || Math.abs(target - t - h) <= 1e-12 * Math.abs(target)) {
      h = target - t;
      landing = true;
    }
    if (Math.abs(h) <= 1e-14 * Math.max(1, Math.abs(t))) unprocessable(`The step size underflowed at t = ${t}: the system is singular there`, { t });
    const diag = 1 / (h * GAMMA);
    for (let i = 0; i < n * n; i++) W[i] = -J[i]!;
    for (let i = 0; i < n; i++) W[i * n + i] = W[i * n + i]! + diag;
    if (!luFactor(W, n, piv)) {
      h *= 0.5;
      rejected++;
      continue;
    }
    for (let s = 0; s < STAGES; s++) {
      const k = K[s]!;
      if (s === 0) k.set(F0);
      else {
        const a = A[s]!;
        for (let i = 0; i < n; i++) {
          let v = y[i]!;
          for (let j = 0; j < s; j++) v += a[j]! * K[j]![i]!;
          tmp[i] = v;
        }
        f(t + ALPHA[s]! * h, tmp, Fs);
        k.set(Fs);
        const c = C[s]!;
        for (let i = 0; i < n; i++) {
          let v = k[i]!;
          for (let j = 0; j < s; j++) v += (c[j]! / h) * K[j]![i]!;
          k[i] = v;
        }
      }
      const g = GAMMA_I[s]!;
      if (g !== 0) for (let i = 0; i < n; i++) k[i] = k[i]! + g * h * T[i]!;
      luSolveInPlace(W, n, piv, k);
    }
    evaluations += STAGES - 1;
    for (let i = 0; i < n; i++) {
      let v = y[i]!;
      for (let j = 0; j < STAGES; j++) v += M[j]! * K[j]![i]!;
      ynew[i] = v;
    }
    const e = errorNorm(K[STAGES - 1]!, y, ynew, o.rtol, o.atol);
    const factor = Number.isFinite(e) ? Math.min(GROW_MAX, Math.max(SHRINK_MIN, SAFETY / Math.pow(Math.max(e, 1e-10), 1 / ORDER))) : SHRINK_MIN;
    if (Number.isFinite(e) && e <= 1) {
      steps++;
      maxError = Math.max(maxError, e);
      t = landing ? target : t + h;
      y.set(ynew);
      f(t, y, F0);
      evaluations++;
      if (landing) {
        times.push(t);
        states.push(Float64Array.from(y));
        next++;
      }
      // No growth right after a rejection: the step that failed is still the best guess of the limit.
      h = h * (rejectedLast ? Math.min(1, factor) : factor);
      rejectedLast = false;
      if (o.hMax !== undefined && Math.abs(h) > o.hMax) h = dir * o.hMax;
      if (next < outputs.length) jacobian();
      if (o.ctl && (steps & 127) === 0) await o.ctl.checkpoint(Math.abs(t - t0), Math.abs(tEnd - t0), 'integrating (stiff)');
    } else {
      rejected++;
      rejectedLast = true;
      h = h * Math.min(factor, 0.5);
    }
  }
  return { times, states, t, y, steps, rejected, evaluations, maxError, eventHit: false };
}
