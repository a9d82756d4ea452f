import { tridiagonalEigenvalue, tridiagonalEigenvector } from '../numeric/linalg.js';
import { input, invalid, unprocessable, type SolverDef } from '../solver-def.js';
import { compileInput } from './roots.solvers.js';

/** ħ²/(2·m_e) in eV·nm² from CODATA 2018 (ħ = 1.054571817e-34 J·s, m_e = 9.1093837015e-31 kg, e = 1.602176634e-19 C). */
const HBAR2_2ME_EV_NM2 = (1.054571817e-34 ** 2 / (2 * 9.1093837015e-31) / 1.602176634e-19) * 1e18;

export const schrodinger1d: SolverDef = {
  id: 'schrodinger-1d',
  name: '1-D time-independent Schrödinger equation',
  domain: 'quantum',
  method: 'Second-order finite differences; Sturm-sequence bisection for eigenvalues, inverse iteration for eigenvectors',
  operator_chain: ['KO42', 'QM3', 'QM4'],
  unit: 'eV',
  version: '1.0.0',
  description:
    'Finds the lowest bound-state energies and wavefunctions of a particle in a 1-D potential V(x) written as an expression (x in nm, V in eV), with ψ = 0 at both ends of the box [x_min, x_max]. Wavefunctions are normalised (∫|ψ|²dx = 1, ψ in nm^-1/2) and sampled on at most 201 points.',
  inputs: [
    input('potential', 'string', 'Potential energy V(x) in eV, x in nm, e.g. "0.5*k*x^2"', { unit: 'eV' }),
    input('x_min', 'number', 'Left wall of the box', { unit: 'nm', min: -1e6, max: 1e6 }),
    input('x_max', 'number', 'Right wall of the box', { unit: 'nm', min: -1e6, max: 1e6 }),
    input('mass', 'number', 'Particle mass in electron masses', { unit: 'm_e', default: 1, min: 1e-6, max: 1e7 }),
    input('grid', 'integer', 'Number of interior grid points', { default: 1000, min: 10, max: 20_000 }),
    input('states', 'integer', 'Number of lowest states to return', { default: 3, min: 1, max: 20 }),
    input('parameters', 'object', 'Named constants used by the potential', { default: {} }),
  ],
  options: [],
  example: { potential: '0.5*k*x^2', x_min: -3, x_max: 3, grid: 1200, states: 3, parameters: { k: 13.123419 } },
  async run(a, _o, ctl) {
    const x0 = a.num('x_min'),
      x1 = a.num('x_max');
    if (!(x1 > x0)) invalid('x_max', 'must be greater than x_min');
    const n = a.int('grid'),
      states = a.int('states');
    if (states > n) invalid('states', `cannot exceed the number of grid points (${n})`);
    const { fn, vars } = compileInput('potential', a.str('potential'), ['x'], a.obj('parameters'));
    const h = (x1 - x0) / (n + 1);
    const t = HBAR2_2ME_EV_NM2 / a.num('mass') / (h * h);
    const x = Float64Array.from({ length: n }, (_, i) => x0 + (i + 1) * h);
    const d = new Float64Array(n),
      e = new Float64Array(n - 1).fill(-t);
    for (let i = 0; i < n; i++) {
      vars[0] = x[i]!;
      const v = fn(vars);
      if (!Number.isFinite(v)) unprocessable(`The potential is not finite at x = ${x[i]} nm`, { x: x[i] });
      d[i] = 2 * t + v;
    }
    let lo = Infinity,
      hi = -Infinity;
    for (let i = 0; i < n; i++) {
      lo = Math.min(lo, d[i]! - 2 * t);
      hi = Math.max(hi, d[i]! + 2 * t);
    }
    const energies: number[] = [],
      wavefunctions: number[][] = [];
    const stride = Math.max(1, Math.ceil(n / 200));
    const sampleX: number[] = [];
    for (let i = 0; i < n; i += stride) sampleX.push(x[i]!);
    let iterations = 0;
    for (let k = 0; k < states; k++) {
      const ev = tridiagonalEigenvalue(d, e, k, lo, hi);
      iterations += ev.iterations;
      energies.push(ev.value);
      const psi = tridiagonalEigenvector(d, e, ev.value);
      // Unit 2-norm on the grid; ∫|ψ|²dx = 1 needs a factor 1/√h.
      const norm = Math.sqrt(h);
      wavefunctions.push(sampleX.map((_, j) => psi[j * stride]! / norm));
      await ctl.checkpoint(k + 1, states, 'eigenstates');
    }
    // A state is trustworthy when ψ is small next to the walls: the box is then wide enough for it.
    const wallLeak = wavefunctions.map((w) => Math.max(Math.abs(w[0]!), Math.abs(w[w.length - 1]!)) / Math.max(...w.map(Math.abs)));
    return {
      result: { energies, x: sampleX, wavefunctions, grid_spacing: h, wall_amplitude_ratio: wallLeak },
      converged: true,
      iterations,
      error_estimate: Math.max(...energies.map((E) => Math.abs(E))) * ((Math.PI * h) / (x1 - x0)) ** 2,
    };
  },
};

/**
 * exp(−A·t) of a lower-bidiagonal decay matrix by Taylor series of the scaled generator followed by
 * repeated squaring. The propagator is entrywise nonnegative, so squaring adds no cancellation and
 * every entry (trace daughters included) keeps its relative accuracy.
 */
function decayPropagator(lambda: Float64Array, t: number): Float64Array {
  const n = lambda.length;
  let norm = 0;
  for (let i = 0; i < n; i++) norm = Math.max(norm, 2 * lambda[i]! * t);
  const s = norm > 0.5 ? Math.ceil(Math.log2(norm / 0.5)) : 0;
  const scale = t / 2 ** s;
  const B = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    B[i * n + i] = -lambda[i]! * scale;
    if (i > 0) B[i * n + i - 1] = lambda[i - 1]! * scale;
  }
  let E: Float64Array = new Float64Array(n * n);
  let term: Float64Array = new Float64Array(n * n);
  for (let i = 0; i < n; i++) E[i * n + i] = term[i * n + i] = 1;
  // Entry (i, j) first appears at power i − j; 24 more terms bring every entry to full precision.
  for (let k = 1; k <= n + 24; k++) {
    term = scaleMatrix(multiply(term, B, n), 1 / k);
    addInto(E, term);
  }
  for (let k = 0; k < s; k++) E = multiply(E, E, n);
  return E;
}

function multiply(X: Float64Array, Y: Float64Array, n: number): Float64Array {
  const Z = new Float64Array(n * n);
  for (let i = 0; i < n; i++)
    for (let k = 0; k < n; k++) {
      const x = X[i * n + k]!;
      if (x === 0) continue;
      for (let j = 0; j < n; j++) Z[i * n + j] = Z[i * n + j]! + x * Y[k * n + j]!;
    }
  return Z;
}

function scaleMatrix(X: Float64Array, c: number): Float64Array {
  for (let i = 0; i < X.length; i++) X[i] = X[i]! * c;
  return X;
}

function addInto(X: Float64Array, Y: Float64Array): void {
  for (let i = 0; i < X.length; i++) X[i] = X[i]! + Y[i]!;
}

export const decayBateman: SolverDef = {
  id: 'decay-bateman',
  name: 'Radioactive decay chain (Bateman)',
  domain: 'nuclear',
  method: 'Matrix exponential of the decay chain (Taylor series on the scaled generator, repeated squaring), Bateman closed form as cross-check',
  operator_chain: ['KO42', 'NU1', 'NU17', 'NU3'],
  unit: '',
  version: '1.0.0',
  description:
    'Evolves a linear decay chain N1 → N2 → … (the last member stable unless you give it a half-life) from initial amounts, at the requested times. Handles equal or nearly equal half-lives and chains spanning many orders of magnitude, where the textbook Bateman sum loses all digits. Returns amounts and activities (λ·N, Bq when amounts are atoms).',
  inputs: [
    input('half_lives', 'vector', 'Half-life of each radioactive member, parent first', { unit: 's', min: 1e-12, max: 1e30, min_items: 1, max_items: 30 }),
    input('initial', 'vector', 'Initial amount of each member (atoms or moles); one more than half_lives when the chain ends in a stable member', {
      min: 0,
      max: 1e300,
      min_items: 1,
      max_items: 31,
    }),
    input('times', 'vector', 'Times at which to report the amounts', { unit: 's', min: 0, max: 1e30, min_items: 1, max_items: 200 }),
    input('stable_end', 'boolean', 'Append a stable final member that collects the last decay', { default: true }),
    input('names', 'list', 'Optional names of the members, e.g. ["Po-218", "Pb-214", ...]', { required: false, min_items: 1, max_items: 31 }),
  ],
  options: [],
  example: { half_lives: [186, 1608, 1194], initial: [1e6, 0, 0, 0], times: [0, 600, 1800, 3600], names: ['Po-218', 'Pb-214', 'Bi-214', 'Po-214'] },
  async run(a, _o, ctl) {
    const halfLives = a.vec('half_lives');
    const stable = a.bool('stable_end');
    const n = halfLives.length + (stable ? 1 : 0);
    const N0 = a.vec('initial');
    if (N0.length !== n) invalid('initial', `needs ${n} amounts (${halfLives.length} radioactive members${stable ? ' and the stable end' : ''})`);
    const names = a.has('names') ? a.list<unknown>('names') : Array.from({ length: n }, (_, i) => `N${i + 1}`);
    if (names.length !== n || !names.every((s) => typeof s === 'string' && s.length > 0 && s.length <= 32))
      invalid('names', `needs ${n} non-empty strings of at most 32 characters`);
    const lambda = new Float64Array(n);
    halfLives.forEach((h, i) => (lambda[i] = Math.LN2 / h));
    const times = a.vec('times');
    const amounts: number[][] = [],
      activities: number[][] = [];
    for (let k = 0; k < times.length; k++) {
      const t = times[k]!;
      if (lambda.some((l) => l * t > 1e30)) unprocessable(`λ·t exceeds 1e30 at t = ${t} s; every member but the long-lived ones is gone long before`);
      const E = decayPropagator(lambda, t);
      const N = Array.from({ length: n }, (_, i) => {
        let s = 0;
        for (let j = 0; j <= i; j++) s += E[i * n + j]! * N0[j]!;
        return s;
      });
      amounts.push(N);
      activities.push(N.map((v, i) => v * lambda[i]!));
      await ctl.checkpoint(k + 1, times.length, 'times');
    }
    const check = batemanCheck(lambda, N0, times, amounts);
    return {
      result: { names, decay_constants: Array.from(lambda), times, amounts, activities, bateman_max_relative_difference: check },
      converged: true,
      iterations: null,
      error_estimate: check,
    };
  },
};

/** Largest relative difference from the Bateman sum for a parent-only start with well-separated constants; null otherwise. */
function batemanCheck(lambda: Float64Array, N0: number[], times: number[], amounts: number[][]): number | null {
  const n = lambda.length;
  if (N0.slice(1).some((v) => v !== 0) || N0[0] === 0) return null;
  const radioactive = Array.from(lambda).filter((l) => l > 0);
  for (let i = 0; i < radioactive.length; i++)
    for (let j = i + 1; j < radioactive.length; j++) {
      if (Math.abs(radioactive[i]! - radioactive[j]!) < 0.05 * Math.max(radioactive[i]!, radioactive[j]!)) return null;
    }
  let worst = 0;
  times.forEach((t, k) => {
    for (let m = 0; m < n; m++) {
      if (lambda[m] === 0) continue;
      let prod = 1;
      for (let i = 0; i < m; i++) prod *= lambda[i]!;
      let sum = 0;
      for (let i = 0; i <= m; i++) {
        let den = 1;
        for (let j = 0; j <= m; j++) if (j !== i) den *= lambda[j]! - lambda[i]!;
        sum += Math.exp(-lambda[i]! * t) / den;
      }
      const bateman = N0[0]! * prod * sum;
      const ours = amounts[k]![m]!;
      if (Math.abs(bateman) > 1e-12 * N0[0]!) worst = Math.max(worst, Math.abs(ours - bateman) / Math.abs(bateman));
    }
  });
  return worst;
}
