import type { RunControl } from '../solver-def.js';
import { unprocessable } from '../solver-def.js';

/** Right-hand side of y' = f(t, y), writing into `dy`. */
export type Rhs = (t: number, y: Float64Array, dy: Float64Array) => void;

export interface AdaptiveOptions {
  rtol: number;
  atol: number;
  maxSteps: number;
  /** Times in (t0, tEnd] at which the state is recorded; the integrator steps exactly onto them. */
  outputs?: number[];
  /** Terminal event: stops where g changes sign in the given direction (0: either). */
  event?: { g: (t: number, y: Float64Array) => number; direction: -1 | 0 | 1 };
  hMax?: number;
  ctl?: RunControl;
}

export interface OdeSolution {
  times: number[];
  states: Float64Array[];
  /** Where the integration stopped: tEnd, or the event. */
  t: number;
  y: Float64Array;
  steps: number;
  rejected: number;
  evaluations: number;
  /** Largest accepted local error estimate, in units of the tolerance (≤ 1). */
  maxError: number;
  eventHit: boolean;
}

/** Classical fourth-order Runge-Kutta with `n` equal steps; records every `every`-th step and the last. */
export async function rk4(f: Rhs, t0: number, y0: Float64Array, tEnd: number, n: number, every: number, ctl?: RunControl): Promise<OdeSolution> {
  const dim = y0.length;
  const h = (tEnd - t0) / n;
  const y = Float64Array.from(y0);
  const k1 = new Float64Array(dim),
    k2 = new Float64Array(dim),
    k3 = new Float64Array(dim),
    k4 = new Float64Array(dim);
  const tmp = new Float64Array(dim);
  const times = [t0];
  const states = [Float64Array.from(y0)];
  for (let s = 0; s < n; s++) {
    // t from the step index, not by accumulation, so rounding does not drift over many steps.
    const t = t0 + s * h;
    f(t, y, k1);
    for (let i = 0; i < dim; i++) tmp[i] = y[i]! + 0.5 * h * k1[i]!;
    f(t + 0.5 * h, tmp, k2);
    for (let i = 0; i < dim; i++) tmp[i] = y[i]! + 0.5 * h * k2[i]!;
    f(t + 0.5 * h, tmp, k3);
    for (let i = 0; i < dim; i++) tmp[i] = y[i]! + h * k3[i]!;
    f(t + h, tmp, k4);
    for (let i = 0; i < dim; i++) y[i] = y[i]! + (h / 6) * (k1[i]! + 2 * k2[i]! + 2 * k3[i]! + k4[i]!);
    assertFinite(y, t + h);
    if ((s + 1) % every === 0 || s === n - 1) {
      times.push(s === n - 1 ? tEnd : t0 + (s + 1) * h);
      states.push(Float64Array.from(y));
    }
    if (ctl && (s & 1023) === 1023) await ctl.checkpoint(s, n, 'rk4 steps');
  }
  return { times, states, t: tEnd, y, steps: n, rejected: 0, evaluations: 4 * n, maxError: 0, eventHit: false };
}

// Dormand-Prince 5(4) tableau.
const C2 = 1 / 5,
  C3 = 3 / 10,
  C4 = 4 / 5,
  C5 = 8 / 9;
const A21 = 1 / 5;
const A31 = 3 / 40,
  A32 = 9 / 40;
const A41 = 44 / 45,
  A42 = -56 / 15,
  A43 = 32 / 9;
const A51 = 19372 / 6561,
  A52 = -25360 / 2187,
  A53 = 64448 / 6561,
  A54 = -212 / 729;
const A61 = 9017 / 3168,
  A62 = -355 / 33,
  A63 = 46732 / 5247,
  A64 = 49 / 176,
  A65 = -5103 / 18656;
const A71 = 35 / 384,
  A73 = 500 / 1113,
  A74 = 125 / 192,
  A75 = -2187 / 6784,
  A76 = 11 / 84;
const E1 = 71 / 57600,
  E3 = -71 / 16695,
  E4 = 71 / 1920,
  E5 = -17253 / 339200,
  E6 = 22 / 525,
  E7 = -1 / 40;

/**
 * Dormand-Prince 5(4) with PI step-size control (Hairer, Nørsett & Wanner, DOPRI5), first-same-as-last,
 * exact landing on output times and an optional terminal event located by Hermite interpolation.
 */
export async function dopri45(f: Rhs, t0: number, y0: Float64Array, tEnd: number, o: AdaptiveOptions): Promise<OdeSolution> {
  const n = y0.length;
  const dir = Math.sign(tEnd - t0);
  const k1 = new Float64Array(n),
    k2 = new Float64Array(n),
    k3 = new Float64Array(n),
    k4 = new Float64Array(n);
  const k5 = new Float64Array(n),
    k6 = new Float64Array(n),
    k7 = new Float64Array(n);
  const tmp = new Float64Array(n),
    ynew = new Float64Array(n),
    err = new Float64Array(n);
  const y = Float64Array.from(y0);
  let t = t0;
  let evaluations = 1;
  f(t, y, k1);
  let h = dir * Math.min(initialStep(f, t, y, k1, o.rtol, o.atol, dir), Math.abs(tEnd - t0), o.hMax ?? Infinity);
  evaluations++;
  const outputs = o.outputs ?? [tEnd];
  let next = 0;
  const times: number[] = [t0];
  const states: Float64Array[] = [Float64Array.from(y0)];
  let steps = 0,
    rejected = 0,
    facOld = 1e-4,
    maxError = 0;
  let gOld = o.event ? o.event.g(t, y) : 0;

  while (next < outputs.length) {
    if (steps + rejected >= o.maxSteps) {
      unprocessable(
        `The integration did not reach t = ${tEnd} within ${o.maxSteps} steps (stopped at t = ${t}); raise max_iterations or loosen the tolerance`,
        { t },
      );
    }
    const target = outputs[next]!;
    const hWanted = h;
    let landing = false;
    if (dir * (t + h - target) >= 0 || Math.abs(target - t - h) <= 1e-12 * Math.abs(target)) {
      h = target - t;
      landing = true;
    }
    if (Math.abs(h) <= 1e-14 * Math.max(1, Math.abs(t))) {
      unprocessable(`The step size underflowed at t = ${t}: the problem is stiff or singular there; try the stiff solver`, { t });
    }
    for (let i = 0; i < n; i++) tmp[i] = y[i]! + h * A21 * k1[i]!;
    f(t + C2 * h, tmp, k2);
    for (let i = 0; i < n; i++) tmp[i] = y[i]! + h * (A31 * k1[i]! + A32 * k2[i]!);
    f(t + C3 * h, tmp, k3);
    for (let i = 0; i < n; i++) tmp[i] = y[i]! + h * (A41 * k1[i]! + A42 * k2[i]! + A43 * k3[i]!);
    f(t + C4 * h, tmp, k4);
    for (let i = 0; i < n; i++) tmp[i] = y[i]! + h * (A51 * k1[i]! + A52 * k2[i]! + A53 * k3[i]! + A54 * k4[i]!);
    f(t + C5 * h, tmp, k5);
    for (let i = 0; i < n; i++) tmp[i] = y[i]! + h * (A61 * k1[i]! + A62 * k2[i]! + A63 * k3[i]! + A64 * k4[i]! + A65 * k5[i]!);
    f(t + h, tmp, k6);
    for (let i = 0; i < n; i++) ynew[i] = y[i]! + h * (A71 * k1[i]! + A73 * k3[i]! + A74 * k4[i]! + A75 * k5[i]! + A76 * k6[i]!);
    f(t + h, ynew, k7);
    evaluations += 6;
    for (let i = 0; i < n; i++) err[i] = h * (E1 * k1[i]! + E3 * k3[i]! + E4 * k4[i]! + E5 * k5[i]! + E6 * k6[i]! + E7 * k7[i]!);
    const e = errorNorm(err, y, ynew, o.rtol, o.atol);
    if (!Number.isFinite(e)) {
      if (Math.abs(h) < 1e-10 * Math.max(1, Math.abs(t))) unprocessable(`The solution became non-finite near t = ${t}`, { t });
      h *= 0.1;
      rejected++;
      continue;
    }
    const fac11 = Math.pow(e, 0.17);
    if (e <= 1) {
      steps++;
      maxError = Math.max(maxError, e);
      const tNew = landing ? target : t + h;
      if (o.event) {
        const gNew = o.event.g(tNew, ynew);
        if (crosses(gOld, gNew, o.event.direction)) {
          const hit = locateEvent(o.event.g, t, y, k1, tNew, ynew, k7);
          return {
            times: [...times, hit.t],
            states: [...states, hit.y],
            t: hit.t,
            y: hit.y,
            steps,
            rejected,
            evaluations: evaluations + hit.evaluations,
            maxError,
            eventHit: true,
          };
        }
        gOld = gNew;
      }
      let fac = fac11 / Math.pow(facOld, 0.04);
      fac = Math.max(1 / 10, Math.min(1 / 0.2, fac / 0.9));
      facOld = Math.max(e, 1e-4);
      const hNew = h / fac;
      t = tNew;
      y.set(ynew);
      k1.set(k7);
      if (landing) {
        times.push(t);
        states.push(Float64Array.from(y));
        next++;
      }
      // A short landing step with a tiny error says nothing about larger steps: resume with the step
      // the controller wanted before landing, unless the landing step itself asked for a smaller one.
      h = landing && fac === 1 / 10 ? dir * Math.max(Math.abs(hNew), Math.abs(hWanted)) : hNew;
      if (o.hMax !== undefined && Math.abs(h) > o.hMax) h = dir * o.hMax;
      if (o.ctl && (steps & 255) === 0) await o.ctl.checkpoint(Math.abs(t - t0), Math.abs(tEnd - t0), 'integrating');
    } else {
      rejected++;
      h = h / Math.min(1 / 0.2, fac11 / 0.9);
    }
  }
  return { times, states, t, y, steps, rejected, evaluations, maxError, eventHit: false };
}

function crosses(a: number, b: number, direction: -1 | 0 | 1): boolean {
  if (direction >= 0 && a < 0 && b >= 0) return true;
  if (direction <= 0 && a > 0 && b <= 0) return true;
  return false;
}

/** Finds the event time on the cubic Hermite interpolant of the last step by bisection then secant. */
function locateEvent(
  g: (t: number, y: Float64Array) => number,
  t0: number,
  y0: Float64Array,
  f0: Float64Array,
  t1: number,
  y1: Float64Array,
  f1: Float64Array,
): { t: number; y: Float64Array; evaluations: number } {
  const n = y0.length;
  const h = t1 - t0;
  const y = new Float64Array(n);
  const at = (theta: number) => {
    const h00 = (1 + 2 * theta) * (1 - theta) * (1 - theta),
      h10 = theta * (1 - theta) * (1 - theta);
    const h01 = theta * theta * (3 - 2 * theta),
      h11 = theta * theta * (theta - 1);
    for (let i = 0; i < n; i++) y[i] = h00 * y0[i]! + h10 * h * f0[i]! + h01 * y1[i]! + h11 * h * f1[i]!;
    return g(t0 + theta * h, y);
  };
  let lo = 0,
    hi = 1;
  let glo = at(0);
  for (let it = 0; it < 80; it++) {
    const mid = 0.5 * (lo + hi);
    const gm = at(mid);
    if ((glo < 0 && gm < 0) || (glo > 0 && gm > 0)) {
      lo = mid;
      glo = gm;
    } else hi = mid;
    if (hi - lo < 1e-15) break;
  }
  at(hi);
  return { t: t0 + hi * h, y: Float64Array.from(y), evaluations: 0 };
}

/** RMS of the error scaled by atol + rtol·max(|y0|, |y1|); ≤ 1 means the step is accepted. */
export function errorNorm(err: Float64Array, y0: Float64Array, y1: Float64Array, rtol: number, atol: number): number {
  let sum = 0;
  for (let i = 0; i < err.length; i++) {
    const sc = atol + rtol * Math.max(Math.abs(y0[i]!), Math.abs(y1[i]!));
    const r = err[i]! / sc;
    sum += r * r;
  }
  return Math.sqrt(sum / err.length);
}

/** Hairer's starting step estimate. */
export function initialStep(f: Rhs, t: number, y: Float64Array, f0: Float64Array, rtol: number, atol: number, dir: number): number {
  const n = y.length;
  let d0 = 0,
    d1 = 0;
  for (let i = 0; i < n; i++) {
    const sc = atol + rtol * Math.abs(y[i]!);
    d0 += (y[i]! / sc) ** 2;
    d1 += (f0[i]! / sc) ** 2;
  }
  d0 = Math.sqrt(d0 / n);
  d1 = Math.sqrt(d1 / n);
  const h0 = d0 < 1e-5 || d1 < 1e-5 ? 1e-6 : 0.01 * (d0 / d1);
  const y1 = new Float64Array(n),
    f1 = new Float64Array(n);
  for (let i = 0; i < n; i++) y1[i] = y[i]! + dir * h0 * f0[i]!;
  f(t + dir * h0, y1, f1);
  let d2 = 0;
  for (let i = 0; i < n; i++) d2 += ((f1[i]! - f0[i]!) / (atol + rtol * Math.abs(y[i]!))) ** 2;
  d2 = Math.sqrt(d2 / n) / h0;
  const big = Math.max(d1, d2);
  const h1 = big <= 1e-15 ? Math.max(1e-6, h0 * 1e-3) : Math.pow(0.01 / big, 1 / 5);
  const h = Math.min(100 * h0, h1);
  return Number.isFinite(h) && h > 0 ? h : 1e-6;
}

export function assertFinite(y: Float64Array, t: number): void {
  for (let i = 0; i < y.length; i++) {
    if (!Number.isFinite(y[i]!)) unprocessable(`The solution became non-finite (overflow) near t = ${t}; the step is too large or the system blows up`, { t });
  }
}
