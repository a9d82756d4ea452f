import { dopri45, type Rhs } from '../numeric/ode.js';
import { input, MAX_ITERATIONS, TOLERANCE, unprocessable, type SolverDef } from '../solver-def.js';

export const epidemicSeir: SolverDef = {
  id: 'epidemic-seir',
  name: 'Epidemic compartments SIR / SEIR',
  domain: 'epidemiology',
  method: 'Dormand-Prince 5(4) on the compartment equations; epidemic peak located as the event dI/dt = 0',
  operator_chain: ['KO42', 'EPI1', 'EPI4'],
  unit: 'people',
  version: '1.0.0',
  description:
    "Runs the deterministic SEIR model (SIR when the incubation rate sigma is 0): S' = −βSI/N, E' = βSI/N − σE, I' = σE − γI, R' = γI. Returns the basic reproduction number, the peak of infections and its day, the final susceptible, infected and recovered counts, and sampled curves.",
  inputs: [
    input('population', 'number', 'Total population N', { unit: 'people', min: 1, max: 1e11 }),
    input('beta', 'number', 'Transmission rate β', { unit: '1/day', min: 0, max: 100 }),
    input('gamma', 'number', 'Recovery rate γ (1 / infectious period)', { unit: '1/day', min: 1e-6, max: 100 }),
    input('sigma', 'number', 'Incubation rate σ (1 / latent period); 0 for the SIR model', { unit: '1/day', default: 0, min: 0, max: 100 }),
    input('initial_infected', 'number', 'Infectious people at day 0', { unit: 'people', min: 0, max: 1e11 }),
    input('initial_exposed', 'number', 'Exposed (latent) people at day 0, SEIR only', { unit: 'people', default: 0, min: 0, max: 1e11 }),
    input('initial_recovered', 'number', 'Recovered (immune) people at day 0', { unit: 'people', default: 0, min: 0, max: 1e11 }),
    input('days', 'number', 'Simulated duration', { unit: 'day', min: 1e-3, max: 1e5 }),
    input('samples', 'integer', 'Number of equally spaced output days, 0 and the end included', { default: 11, min: 2, max: 1001 }),
  ],
  options: [TOLERANCE(1e-10, 1e-13), MAX_ITERATIONS(200_000, 2_000_000)],
  example: { population: 1e6, beta: 0.5, gamma: 0.2, sigma: 0.25, initial_infected: 10, days: 200, samples: 11 },
  async run(a, o, ctl) {
    const N = a.num('population'),
      beta = a.num('beta'),
      gamma = a.num('gamma'),
      sigma = a.num('sigma');
    const I0 = a.num('initial_infected'),
      E0 = a.num('initial_exposed'),
      R0c = a.num('initial_recovered');
    const S0 = N - I0 - E0 - R0c;
    if (S0 < 0) unprocessable(`initial infected, exposed and recovered (${I0 + E0 + R0c}) exceed the population (${N})`);
    if (sigma === 0 && E0 > 0) unprocessable('initial_exposed needs an incubation rate sigma > 0 (SEIR)');
    const seir = sigma > 0;
    const f: Rhs = (_t, y, dy) => {
      const force = (beta * y[0]! * y[2]!) / N;
      dy[0] = -force;
      dy[1] = seir ? force - sigma * y[1]! : 0;
      dy[2] = (seir ? sigma * y[1]! : force) - gamma * y[2]!;
      dy[3] = gamma * y[2]!;
    };
    const days = a.num('days'),
      samples = a.int('samples');
    const outputs = Array.from({ length: samples - 1 }, (_, i) => (i === samples - 2 ? days : ((i + 1) * days) / (samples - 1)));
    const y0 = Float64Array.from([S0, E0, I0, R0c]);
    const opts = { rtol: o.num('tolerance'), atol: 1e-9, maxSteps: o.int('max_iterations'), ctl };
    const dI = (y: Float64Array) => (seir ? sigma * y[1]! : (beta * y[0]! * y[2]!) / N) - gamma * y[2]!;
    const peakRun = await dopri45(f, 0, y0, days, { ...opts, outputs: [days], event: { g: (_t, y) => dI(y), direction: -1 } });
    const run = await dopri45(f, 0, y0, days, { ...opts, outputs });
    const final = run.y;
    const peak = peakRun.eventHit ? { day: peakRun.t, infected: peakRun.y[2]! } : dI(y0) <= 0 ? { day: 0, infected: I0 } : { day: days, infected: final[2]! };
    return {
      result: {
        model: seir ? 'SEIR' : 'SIR',
        basic_reproduction_number: beta / gamma,
        peak_day: peak.day,
        peak_infected: peak.infected,
        peak_reached: peakRun.eventHit || dI(y0) <= 0,
        final: { susceptible: final[0]!, exposed: final[1]!, infected: final[2]!, recovered: final[3]! },
        attack_rate: (S0 - final[0]!) / N,
        samples: {
          day: run.times,
          susceptible: run.states.map((s) => s[0]!),
          exposed: run.states.map((s) => s[1]!),
          infected: run.states.map((s) => s[2]!),
          recovered: run.states.map((s) => s[3]!),
        },
      },
      converged: true,
      iterations: run.steps,
      error_estimate: run.maxError * o.num('tolerance'),
    };
  },
};

export const lotkaVolterra: SolverDef = {
  id: 'lotka-volterra',
  name: 'Predator-prey populations (Lotka-Volterra)',
  domain: 'ecology',
  method: 'Dormand-Prince 5(4); cycle period from successive upward crossings of the prey equilibrium (event location)',
  operator_chain: ['KO42', 'ECO3', 'ECO4'],
  unit: 'individuals',
  version: '1.0.0',
  description:
    "Integrates x' = αx − βxy (prey), y' = δxy − γy (predators). Returns sampled populations, the measured cycle period (compare 2π/√(αγ) for small cycles), and the drift of the conserved quantity V = δx − γ·ln x + βy − α·ln y as an accuracy check.",
  inputs: [
    input('alpha', 'number', 'Prey growth rate α', { unit: '1/time', min: 1e-9, max: 1e3 }),
    input('beta', 'number', 'Predation rate β', { unit: '1/(individual·time)', min: 1e-12, max: 1e3 }),
    input('gamma', 'number', 'Predator death rate γ', { unit: '1/time', min: 1e-9, max: 1e3 }),
    input('delta', 'number', 'Predator growth per prey eaten δ', { unit: '1/(individual·time)', min: 1e-12, max: 1e3 }),
    input('prey', 'number', 'Initial prey population', { unit: 'individuals', min: 1e-9, max: 1e12 }),
    input('predators', 'number', 'Initial predator population', { unit: 'individuals', min: 1e-9, max: 1e12 }),
    input('t_end', 'number', 'Simulated duration', { unit: 'time', min: 1e-6, max: 1e6 }),
    input('samples', 'integer', 'Number of equally spaced output times', { default: 11, min: 2, max: 1001 }),
  ],
  options: [TOLERANCE(1e-11, 1e-13), MAX_ITERATIONS(500_000, 5_000_000)],
  example: { alpha: 1.1, beta: 0.4, gamma: 0.4, delta: 0.1, prey: 10, predators: 10, t_end: 50, samples: 11 },
  async run(a, o, ctl) {
    const al = a.num('alpha'),
      be = a.num('beta'),
      ga = a.num('gamma'),
      de = a.num('delta');
    const f: Rhs = (_t, y, dy) => {
      dy[0] = al * y[0]! - be * y[0]! * y[1]!;
      dy[1] = de * y[0]! * y[1]! - ga * y[1]!;
    };
    const V = (y: Float64Array) => de * y[0]! - ga * Math.log(y[0]!) + be * y[1]! - al * Math.log(y[1]!);
    const tEnd = a.num('t_end'),
      samples = a.int('samples');
    const outputs = Array.from({ length: samples - 1 }, (_, i) => (i === samples - 2 ? tEnd : ((i + 1) * tEnd) / (samples - 1)));
    const y0 = Float64Array.from([a.num('prey'), a.num('predators')]);
    const opts = { rtol: o.num('tolerance'), atol: 1e-12 * Math.max(y0[0]!, y0[1]!), maxSteps: o.int('max_iterations'), ctl };
    const run = await dopri45(f, 0, y0, tEnd, { ...opts, outputs });
    // Prey crosses its equilibrium γ/δ upward once per cycle (when predators are at their maximum).
    const xEq = ga / de;
    const crossings: number[] = [];
    let t = 0;
    let y: Float64Array = y0;
    while (crossings.length < 50) {
      const leg = await dopri45(f, t, y, tEnd, { ...opts, outputs: [tEnd], event: { g: (_t, s) => s[0]! - xEq, direction: 1 } });
      if (!leg.eventHit) break;
      crossings.push(leg.t);
      // Restart just past the event so the same crossing is not found again.
      t = leg.t;
      y = leg.y;
      y[0] = Math.max(y[0]!, xEq * (1 + 1e-12));
    }
    const periods = crossings.slice(1).map((c, i) => c - crossings[i]!);
    const period = periods.length > 0 ? periods.reduce((s, p) => s + p, 0) / periods.length : null;
    const drift = Math.abs(V(run.y) - V(y0)) / Math.abs(V(y0));
    if (!run.y.every((v) => v > 0)) unprocessable('a population reached zero or below: the integration lost positivity; tighten the tolerance');
    return {
      result: {
        t: run.times,
        prey: run.states.map((s) => s[0]!),
        predators: run.states.map((s) => s[1]!),
        equilibrium: { prey: xEq, predators: al / be },
        period,
        small_cycle_period: (2 * Math.PI) / Math.sqrt(al * ga),
        invariant_relative_drift: drift,
      },
      converged: true,
      iterations: run.steps,
      error_estimate: drift,
    };
  },
};

export const lorenzLyapunov: SolverDef = {
  id: 'lorenz-lyapunov',
  name: 'Lorenz attractor and Lyapunov spectrum',
  domain: 'chaos',
  method: 'RK4 on the Lorenz system and its variational equations, Benettin algorithm with Gram-Schmidt re-orthonormalisation',
  operator_chain: ['KO42'],
  unit: '1/s',
  version: '1.0.0',
  description:
    "Integrates the Lorenz system x' = σ(y − x), y' = x(ρ − z) − y, z' = xy − βz together with three tangent vectors, re-orthonormalised at every step, and returns the three Lyapunov exponents (positive largest = chaos), their sum (which must equal −(σ + 1 + β)), the Kaplan-Yorke dimension and the final state.",
  inputs: [
    input('sigma', 'number', 'σ (Prandtl number)', { default: 10, min: 1e-6, max: 1000 }),
    input('rho', 'number', 'ρ (Rayleigh number ratio)', { default: 28, min: 0, max: 1000 }),
    input('beta', 'number', 'β (geometric factor)', { default: 8 / 3, min: 1e-6, max: 1000 }),
    input('initial', 'vector', 'Initial state [x, y, z]', { default: [1, 1, 1], min: -1e6, max: 1e6, min_items: 3, max_items: 3 }),
    input('dt', 'number', 'RK4 time step', { unit: 's', default: 0.01, min: 1e-6, max: 0.05 }),
    input('transient', 'number', 'Time discarded before averaging, so the orbit settles on the attractor', { unit: 's', default: 10, min: 0, max: 1e5 }),
    input('duration', 'number', 'Averaging time', { unit: 's', default: 200, min: 1, max: 1e5 }),
  ],
  options: [],
  example: { sigma: 10, rho: 28, beta: 8 / 3, initial: [1, 1, 1], dt: 0.01, transient: 10, duration: 200 },
  async run(a, _o, ctl) {
    const s = a.num('sigma'),
      r = a.num('rho'),
      b = a.num('beta'),
      dt = a.num('dt');
    const skip = Math.round(a.num('transient') / dt),
      steps = Math.round(a.num('duration') / dt);
    if (skip + steps > 20_000_000) unprocessable('transient + duration need more than 2e7 steps; use a larger dt or shorter times');
    // State: x, y, z, then three tangent vectors (3 × 3), integrated together.
    const f = (y: Float64Array, dy: Float64Array) => {
      const x = y[0]!,
        yy = y[1]!,
        z = y[2]!;
      dy[0] = s * (yy - x);
      dy[1] = x * (r - z) - yy;
      dy[2] = x * yy - b * z;
      for (let k = 0; k < 3; k++) {
        const u = y[3 + 3 * k]!,
          v = y[4 + 3 * k]!,
          w = y[5 + 3 * k]!;
        dy[3 + 3 * k] = s * (v - u);
        dy[4 + 3 * k] = (r - z) * u - v - x * w;
        dy[5 + 3 * k] = yy * u + x * v - b * w;
      }
    };
    const y = new Float64Array(12);
    y.set(a.vec('initial'));
    y[3] = y[7] = y[11] = 1;
    const k1 = new Float64Array(12),
      k2 = new Float64Array(12),
      k3 = new Float64Array(12),
      k4 = new Float64Array(12),
      tmp = new Float64Array(12);
    const sums = [0, 0, 0];
    for (let n = 0; n < skip + steps; n++) {
      f(y, k1);
      for (let i = 0; i < 12; i++) tmp[i] = y[i]! + 0.5 * dt * k1[i]!;
      f(tmp, k2);
      for (let i = 0; i < 12; i++) tmp[i] = y[i]! + 0.5 * dt * k2[i]!;
      f(tmp, k3);
      for (let i = 0; i < 12; i++) tmp[i] = y[i]! + dt * k3[i]!;
      f(tmp, k4);
      for (let i = 0; i < 12; i++) y[i] = y[i]! + (dt / 6) * (k1[i]! + 2 * k2[i]! + 2 * k3[i]! + k4[i]!);
      // Modified Gram-Schmidt on the tangent vectors; their stretch factors are the local growth rates.
      for (let k = 0; k < 3; k++) {
        const o = 3 + 3 * k;
        for (let j = 0; j < k; j++) {
          const q = 3 + 3 * j;
          const d = y[o]! * y[q]! + y[o + 1]! * y[q + 1]! + y[o + 2]! * y[q + 2]!;
          y[o] = y[o]! - d * y[q]!;
          y[o + 1] = y[o + 1]! - d * y[q + 1]!;
          y[o + 2] = y[o + 2]! - d * y[q + 2]!;
        }
        const norm = Math.hypot(y[o]!, y[o + 1]!, y[o + 2]!);
        if (!(norm > 0) || !Number.isFinite(norm)) unprocessable(`the tangent dynamics degenerated at step ${n}; reduce dt`);
        y[o] = y[o]! / norm;
        y[o + 1] = y[o + 1]! / norm;
        y[o + 2] = y[o + 2]! / norm;
        if (n >= skip) sums[k] = sums[k]! + Math.log(norm);
      }
      if (!Number.isFinite(y[0]!)) unprocessable(`the orbit blew up at step ${n}; reduce dt`);
      if ((n & 4095) === 4095) await ctl.checkpoint(n, skip + steps, 'RK4 steps');
    }
    const T = steps * dt;
    const exponents = sums.map((v) => v / T);
    let kySum = 0,
      j = 0;
    while (j < 3 && kySum + exponents[j]! >= 0) kySum += exponents[j++]!;
    const kaplanYorke = j === 3 ? 3 : j + kySum / Math.abs(exponents[j]!);
    return {
      result: {
        exponents,
        sum: exponents[0]! + exponents[1]! + exponents[2]!,
        expected_sum: -(s + 1 + b),
        kaplan_yorke_dimension: kaplanYorke,
        final_state: [y[0]!, y[1]!, y[2]!],
      },
      converged: true,
      iterations: skip + steps,
      error_estimate: Math.abs(exponents[0]! + exponents[1]! + exponents[2]! + (s + 1 + b)),
    };
  },
};
