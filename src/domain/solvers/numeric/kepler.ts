import { unprocessable } from '../solver-def.js';

export interface KeplerSolution {
  /** Eccentric anomaly E (elliptic), hyperbolic anomaly H, or D = tan(ν/2) (parabolic). */
  anomaly: number;
  trueAnomaly: number;
  iterations: number;
  /** |M − M(anomaly)| at the end. */
  residual: number;
}

/**
 * Solves Kepler's equation for the anomaly: M = E − e·sin E (e < 1, Newton from Danby's starter with
 * the mean anomaly reduced to [−π, π]), M = e·sinh H − H (e > 1, Newton from an asinh starter), or
 * Barker's equation M = D + D³/3 (e = 1, closed form).
 */
export function solveKepler(M: number, e: number, maxIter = 100): KeplerSolution {
  if (e === 1) {
    const w = Math.cbrt(1.5 * M + Math.sqrt(2.25 * M * M + 1));
    const D = w - 1 / w;
    return { anomaly: D, trueAnomaly: 2 * Math.atan(D), iterations: 0, residual: Math.abs(D + (D * D * D) / 3 - M) };
  }
  if (e < 1) {
    const twoPi = 2 * Math.PI;
    let m = M - twoPi * Math.round(M / twoPi);
    const turns = M - m;
    let E = m + 0.85 * e * Math.sign(Math.sin(m) || 1);
    let it = 0;
    for (; it < maxIter; it++) {
      const f = E - e * Math.sin(E) - m;
      const fp = 1 - e * Math.cos(E);
      const fpp = e * Math.sin(E);
      // Halley's correction: cubic convergence, and well behaved near e → 1 where Newton overshoots.
      const dE = -f / (fp - (0.5 * f * fpp) / fp);
      E += dE;
      if (Math.abs(dE) <= 4 * Number.EPSILON * Math.max(1, Math.abs(E))) break;
    }
    if (it >= maxIter) unprocessable(`Kepler's equation did not converge in ${maxIter} iterations (e = ${e})`);
    const nu = 2 * Math.atan2(Math.sqrt(1 + e) * Math.sin(E / 2), Math.sqrt(1 - e) * Math.cos(E / 2));
    m = m + turns;
    return { anomaly: E + turns, trueAnomaly: nu + turns, iterations: it + 1, residual: Math.abs(E - e * Math.sin(E) - (m - turns)) };
  }
  let H = Math.asinh(M / e);
  let it = 0;
  for (; it < maxIter; it++) {
    const f = e * Math.sinh(H) - H - M;
    const fp = e * Math.cosh(H) - 1;
    const dH = -f / fp;
    H += dH;
    if (Math.abs(dH) <= 4 * Number.EPSILON * Math.max(1, Math.abs(H))) break;
  }
  if (it >= maxIter) unprocessable(`The hyperbolic Kepler equation did not converge in ${maxIter} iterations (e = ${e})`);
  const nu = 2 * Math.atan(Math.sqrt((e + 1) / (e - 1)) * Math.tanh(H / 2));
  return { anomaly: H, trueAnomaly: nu, iterations: it + 1, residual: Math.abs(e * Math.sinh(H) - H - M) };
}
