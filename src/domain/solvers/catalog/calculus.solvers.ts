import { checkName } from '../inputs.js';
import { fft } from '../numeric/fft.js';
import { bfgs, nelderMead } from '../numeric/optimize.js';
import { integrate } from '../numeric/quadrature.js';
import { input, invalid, MAX_ITERATIONS, TOLERANCE, unprocessable, type Args, type InputSpec, type SolverDef } from '../solver-def.js';
import { compileInput, scalarFunction } from './roots.solvers.js';

export const quadGaussKronrod: SolverDef = {
  id: 'quad-gauss-kronrod',
  name: 'Definite integral, adaptive Gauss-Kronrod',
  domain: 'quadrature',
  method: 'Globally adaptive Gauss-Kronrod 7-15 (QUADPACK QAG strategy), infinite limits by variable change',
  operator_chain: ['KO42'],
  unit: '',
  version: '1.0.0',
  description:
    'Integrates an expression f(x) from a to b to a relative tolerance, bisecting the subinterval with the largest error estimate until the total error is small enough. Infinite limits are allowed with `infinite_limits`. Returns the value and its error estimate.',
  inputs: [
    input('f', 'string', 'Integrand as an expression in the variable and parameters, e.g. "exp(-x^2)"'),
    input('variable', 'string', 'Name of the integration variable', { default: 'x' }),
    input('a', 'number', 'Lower limit (ignored when infinite_limits is "lower" or "both")', { default: 0, min: -1e300, max: 1e300 }),
    input('b', 'number', 'Upper limit (ignored when infinite_limits is "upper" or "both")', { default: 1, min: -1e300, max: 1e300 }),
    input('infinite_limits', 'string', 'Which limits are infinite', { default: 'none', enum: ['none', 'lower', 'upper', 'both'] }),
    input('parameters', 'object', 'Named constants used by f', { default: {} }),
  ],
  options: [
    TOLERANCE(1e-12, 1e-15),
    input('abs_tolerance', 'number', 'Absolute error tolerance', { default: 1e-300, min: 0, max: 1 }),
    input('max_intervals', 'integer', 'Most subintervals before giving up', { default: 2000, min: 1, max: 100_000 }),
  ],
  example: { f: '4 / (1 + x^2)', a: 0, b: 1 },
  async run(a, o) {
    const f = scalarFunction(a);
    const which = a.str('infinite_limits');
    const lo = which === 'lower' || which === 'both' ? -Infinity : a.num('a');
    const hi = which === 'upper' || which === 'both' ? Infinity : a.num('b');
    const r = integrate(f, lo, hi, o.num('abs_tolerance'), o.num('tolerance'), o.int('max_intervals'));
    return {
      result: { value: r.value, error_estimate: r.error, intervals: r.intervals, evaluations: r.evaluations },
      converged: true,
      iterations: r.intervals,
      error_estimate: r.error,
    };
  },
};

export const fftSpectrum: SolverDef = {
  id: 'fft-spectrum',
  name: 'Spectrum of a sampled signal, FFT',
  domain: 'signal',
  method: 'Radix-2 Cooley-Tukey FFT, Bluestein chirp-z for other lengths',
  operator_chain: ['KO42', 'SIG8', 'SIG10'],
  unit: 'Hz',
  version: '1.0.0',
  description:
    'Computes the discrete Fourier transform of a real signal sampled at a fixed rate and returns the one-sided amplitude and phase spectrum, the dominant frequency and a Parseval energy check. Any length works; powers of two are fastest. A Hann window reduces leakage for non-periodic segments.',
  inputs: [
    input('signal', 'vector', 'Samples, equally spaced in time', { min_items: 2, max_items: 65_536, min: -1e150, max: 1e150 }),
    input('sample_rate', 'number', 'Samples per second', { unit: 'Hz', default: 1, min: 1e-12, max: 1e12 }),
    input('window', 'string', 'Window applied before the transform', { default: 'none', enum: ['none', 'hann'] }),
    input('remove_mean', 'boolean', 'Subtract the mean first (hides the DC bin)', { default: false }),
  ],
  options: [],
  example: {
    signal: Array.from({ length: 64 }, (_, i) => Number((Math.sin((2 * Math.PI * 5 * i) / 64) + 0.5 * Math.cos((2 * Math.PI * 12 * i) / 64)).toFixed(12))),
    sample_rate: 64,
  },
  async run(a) {
    const x = a.vec('signal');
    const n = x.length;
    const fs = a.num('sample_rate');
    const re = Float64Array.from(x),
      im = new Float64Array(n);
    if (a.bool('remove_mean')) {
      let mean = 0;
      for (let i = 0; i < n; i++) mean += re[i]!;
      mean /= n;
      for (let i = 0; i < n; i++) re[i] = re[i]! - mean;
    }
    let gain = 1;
    if (a.str('window') === 'hann') {
      let sum = 0;
      for (let i = 0; i < n; i++) {
        const w = 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / n);
        re[i] = re[i]! * w;
        sum += w;
      }
      gain = sum / n;
    }
    let timeEnergy = 0;
    for (let i = 0; i < n; i++) timeEnergy += re[i]! * re[i]!;
    fft(re, im);
    let freqEnergy = 0;
    for (let k = 0; k < n; k++) freqEnergy += re[k]! * re[k]! + im[k]! * im[k]!;
    freqEnergy /= n;
    const bins = Math.floor(n / 2) + 1;
    const frequencies: number[] = [],
      amplitude: number[] = [],
      phase: number[] = [],
      real: number[] = [],
      imag: number[] = [];
    for (let k = 0; k < bins; k++) {
      const edge = k === 0 || (n % 2 === 0 && k === n / 2);
      const mag = (Math.hypot(re[k]!, im[k]!) / n / gain) * (edge ? 1 : 2);
      frequencies.push((k * fs) / n);
      amplitude.push(mag);
      phase.push(Math.atan2(im[k]!, re[k]!));
      real.push(re[k]!);
      imag.push(im[k]!);
    }
    // The dominant bin ignores DC; the first of equal peaks wins.
    let best = bins > 1 ? 1 : 0;
    for (let k = 2; k < bins; k++) if (amplitude[k]! > amplitude[best]!) best = k;
    const parseval = Math.abs(freqEnergy - timeEnergy) / Math.max(timeEnergy, Number.MIN_VALUE);
    return {
      result: {
        n,
        resolution_hz: fs / n,
        dominant_frequency: frequencies[best]!,
        dominant_amplitude: amplitude[best]!,
        frequencies,
        amplitude,
        phase,
        real,
        imag,
        parseval_relative_error: parseval,
      },
      converged: true,
      iterations: null,
      error_estimate: parseval,
    };
  },
};

const OBJECTIVE_INPUTS: InputSpec[] = [
  input('f', 'string', 'Objective to minimise, as an expression in the variables and parameters, e.g. "(1-x)^2 + 100*(y-x^2)^2"'),
  input('variables', 'list', 'Names of the variables, e.g. ["x", "y"]', { min_items: 1, max_items: 50 }),
  input('initial', 'vector', 'Starting point, one value per variable', { min_items: 1, max_items: 50, min: -1e150, max: 1e150 }),
  input('parameters', 'object', 'Named constants used by f', { default: {} }),
];

function objective(a: Args): { f: (x: Float64Array) => number; names: string[]; x0: number[] } {
  const names = a.list<unknown>('variables').map((v, i) => checkName(`variables[${i}]`, v));
  const x0 = a.vec('initial');
  if (x0.length !== names.length) invalid('initial', `give one starting value per variable (${names.length})`);
  if (new Set(names).size !== names.length) invalid('variables', 'names must be distinct');
  const { fn, vars } = compileInput('f', a.str('f'), names, a.obj('parameters'));
  const n = names.length;
  return {
    names,
    x0,
    f: (x) => {
      vars.set(x.subarray(0, n), 0);
      return fn(vars);
    },
  };
}

function minimumOf(names: string[], x: number[]): Record<string, number> {
  const out: Record<string, number> = {};
  names.forEach((n, i) => (out[n] = x[i]!));
  return out;
}

export const optimizeNelderMead: SolverDef = {
  id: 'optimize-nelder-mead',
  name: 'Minimisation without derivatives, Nelder-Mead',
  domain: 'optimization',
  method: 'Nelder-Mead downhill simplex with Gao-Han adaptive coefficients',
  operator_chain: ['KO42'],
  unit: '',
  version: '1.0.0',
  description:
    'Finds a local minimum of an expression in several variables from a starting point using only function values, so it copes with kinks and noise. Slower than BFGS on smooth problems. Returns the minimiser and the minimum.',
  inputs: [
    ...OBJECTIVE_INPUTS,
    input('step', 'number', 'Initial simplex size relative to each coordinate (absolute for zero coordinates)', { default: 0.1, min: 1e-12, max: 1e6 }),
  ],
  options: [TOLERANCE(1e-10, 1e-15), MAX_ITERATIONS(20_000, 1_000_000)],
  example: { f: '(1 - x)^2 + 100*(y - x^2)^2', variables: ['x', 'y'], initial: [-1.2, 1] },
  async run(a, o, ctl) {
    const { f, names, x0 } = objective(a);
    const r = await nelderMead(f, x0, a.num('step'), o.num('tolerance'), o.int('max_iterations'), ctl);
    if (!Number.isFinite(r.value)) unprocessable('the objective has no finite minimum near the start');
    return {
      result: { minimum: minimumOf(names, r.x), x: r.x, value: r.value, evaluations: r.evaluations },
      converged: true,
      iterations: r.iterations,
      error_estimate: r.measure,
    };
  },
};

export const optimizeBfgs: SolverDef = {
  id: 'optimize-bfgs',
  name: 'Smooth minimisation, BFGS',
  domain: 'optimization',
  method: 'BFGS quasi-Newton with central-difference gradients and Armijo backtracking',
  operator_chain: ['KO42'],
  unit: '',
  version: '1.0.0',
  description:
    'Finds a local minimum of a smooth expression in several variables, building an inverse-Hessian approximation from gradient differences: superlinear convergence near the minimum. Use Nelder-Mead for non-smooth objectives.',
  inputs: OBJECTIVE_INPUTS,
  options: [TOLERANCE(1e-9, 1e-14), MAX_ITERATIONS(2000, 100_000)],
  example: { f: '(1 - x)^2 + 100*(y - x^2)^2', variables: ['x', 'y'], initial: [-1.2, 1] },
  async run(a, o, ctl) {
    const { f, names, x0 } = objective(a);
    const r = await bfgs(f, x0, o.num('tolerance'), o.int('max_iterations'), ctl);
    return {
      result: { minimum: minimumOf(names, r.x), x: r.x, value: r.value, gradient_norm: r.measure, evaluations: r.evaluations },
      converged: true,
      iterations: r.iterations,
      error_estimate: r.measure,
    };
  },
};
