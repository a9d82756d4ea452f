import { describe, expect, it } from 'vitest';
import { rel, solve } from './solve-helper.js';

// Each solver against an analytic solution or a published value; the tolerance is in the test name.

describe('ODE solvers', () => {
  it('ode-rk4 returns the harmonic oscillator to x = 1, v = 0 after one period within 1e-9', async () => {
    const r = await solve('ode-rk4', { variables: ['x', 'v'], equations: ['v', '-x'], initial: [1, 0], t_end: 2 * Math.PI, steps: 2000, samples: 5 });
    expect(Math.abs(r.final.x - 1)).toBeLessThan(1e-9);
    expect(Math.abs(r.final.v)).toBeLessThan(1e-9);
    expect(Math.abs(r.samples.x[2] + 1)).toBeLessThan(1e-9);
  });

  it("ode-dopri45 integrates y' = -2ty to exp(-t^2) at t = 2 within 1e-9 relative", async () => {
    const r = await solve('ode-dopri45', { variables: ['y'], equations: ['-2*t*y'], initial: [1], t_end: 2, samples: 3 }, { tolerance: 1e-11 });
    expect(rel(r.final.y, Math.exp(-4))).toBeLessThan(1e-9);
    expect(rel(r.samples.y[1], Math.exp(-1))).toBeLessThan(1e-9);
  });

  it('ode-dopri45 keeps a Kepler orbit on its ellipse: energy within 1e-9 relative after 10 orbits', async () => {
    const r = await solve(
      'ode-dopri45',
      {
        variables: ['x', 'y', 'u', 'v'],
        equations: ['u', 'v', '-x/(x^2+y^2)^1.5', '-y/(x^2+y^2)^1.5'],
        initial: [1, 0, 0, 1.2],
        t_end: 10 * 2 * Math.PI * (1 / (2 - 1.44)) ** 1.5,
        samples: 2,
      },
      { tolerance: 1e-12, abs_tolerance: 1e-14 },
    );
    const energy = (s: any) => 0.5 * (s.u ** 2 + s.v ** 2) - 1 / Math.hypot(s.x, s.y);
    expect(rel(energy(r.final), 0.5 * 1.44 - 1)).toBeLessThan(1e-9);
    expect(Math.abs(r.final.x - 1)).toBeLessThan(1e-7);
  });

  it('ode-stiff-rosenbrock matches the Robertson reference solution at t = 40 within 1e-5 relative', async () => {
    // Reference values from the Hairer-Wanner stiff test set (Robertson's chemical kinetics).
    const r = await solve(
      'ode-stiff-rosenbrock',
      {
        variables: ['y1', 'y2', 'y3'],
        equations: ['-0.04*y1 + 1e4*y2*y3', '0.04*y1 - 1e4*y2*y3 - 3e7*y2^2', '3e7*y2^2'],
        initial: [1, 0, 0],
        t_end: 40,
        samples: 2,
      },
      { tolerance: 1e-7, abs_tolerance: 1e-12 },
    );
    expect(rel(r.final.y1, 0.7158270687193135)).toBeLessThan(1e-5);
    expect(rel(r.final.y2, 9.185534764557763e-6)).toBeLessThan(1e-5);
    expect(rel(r.final.y3, 0.2841637457458863)).toBeLessThan(1e-5);
  });

  it.each([1e-6, 1e-8, 1e-10])(
    "ode-stiff-rosenbrock keeps the global error on y' = -y within 2x of a relative tolerance of %s at every sample",
    async (tolerance) => {
      // The global error, not only each step's local error, follows the tolerance (ode23s drifted to 900x at 1e-10).
      const r = await solve(
        'ode-stiff-rosenbrock',
        { variables: ['y'], equations: ['-y'], initial: [1], t_end: 10, samples: 11 },
        { tolerance, abs_tolerance: 1e-300 },
      );
      const worst = Math.max(...r.samples.t.map((t: number, i: number) => (t === 0 ? 0 : rel(r.samples.y[i], Math.exp(-t)) / tolerance)));
      expect(worst).toBeLessThan(2);
    },
  );

  it('ode-stiff-rosenbrock integrates Van der Pol at mu = 1000 over a relaxation cycle within its step budget, staying on the |x| <= 2.05 limit cycle', async () => {
    const r = await solve('ode-stiff-rosenbrock', {
      variables: ['x', 'y'],
      equations: ['y', 'mu*((1 - x^2)*y) - x'],
      initial: [2, 0],
      t_end: 3000,
      parameters: { mu: 1000 },
      samples: 31,
    });
    expect(Math.max(...r.samples.x.map(Math.abs))).toBeLessThan(2.05);
    expect(r.steps).toBeLessThan(20_000);
  });
});

describe('mechanics', () => {
  it('nbody-verlet returns a circular test-particle orbit to its start after one period within 1e-5', async () => {
    const n = 10_000;
    const r = await solve('nbody-verlet', {
      masses: [1, 0],
      positions: [
        [0, 0, 0],
        [1, 0, 0],
      ],
      velocities: [
        [0, 0, 0],
        [0, 1, 0],
      ],
      dt: (2 * Math.PI) / n,
      steps: n,
      gravitational_constant: 1,
    });
    expect(Math.hypot(r.positions[1][0] - 1, r.positions[1][1])).toBeLessThan(1e-5);
    expect(r.energy_relative_drift).toBeLessThan(1e-8);
  });

  it('projectile-drag reproduces the vacuum range, height and flight time with Cd = 0 within 1e-9 relative', async () => {
    const v = 40,
      theta = (35 * Math.PI) / 180,
      g = 9.80665;
    const r = await solve('projectile-drag', { speed: v, angle: 35, mass: 1, drag_coefficient: 0, area: 0.01 });
    expect(rel(r.range, (v * v * Math.sin(2 * theta)) / g)).toBeLessThan(1e-9);
    expect(rel(r.max_height, (v * v * Math.sin(theta) ** 2) / (2 * g))).toBeLessThan(1e-9);
    expect(rel(r.flight_time, (2 * v * Math.sin(theta)) / g)).toBeLessThan(1e-9);
  });

  it('projectile-drag with drag falls short of the vacuum range and lands steeper than it launched', async () => {
    const r = await solve('projectile-drag', { speed: 50, angle: 45, mass: 0.145, drag_coefficient: 0.3, area: 0.0042 });
    expect(r.range).toBeLessThan((50 * 50) / 9.80665);
    expect(r.impact_angle_deg).toBeGreaterThan(45);
  });
});

describe('roots, quadrature, optimisation', () => {
  it("root-brent finds Wallis's root of x^3 - 2x - 5 (2.0945514815423265) within 1e-15 relative", async () => {
    const r = await solve('root-brent', { f: 'x^3 - 2*x - 5', a: 2, b: 3 });
    expect(rel(r.root, 2.0945514815423265)).toBeLessThan(1e-15);
  });

  it('root-newton-system solves x^2 + y^2 = 4, x = y to (sqrt 2, sqrt 2) within 1e-12', async () => {
    const r = await solve('root-newton-system', { variables: ['x', 'y'], equations: ['x^2 + y^2 - 4', 'x - y'], initial: [1, 0.5] });
    expect(Math.abs(r.solution.x - Math.SQRT2)).toBeLessThan(1e-12);
    expect(Math.abs(r.solution.y - Math.SQRT2)).toBeLessThan(1e-12);
  });

  it('quad-gauss-kronrod integrates 4/(1+x^2) on [0, 1] to pi within 1e-14 relative', async () => {
    const r = await solve('quad-gauss-kronrod', { f: '4 / (1 + x^2)', a: 0, b: 1 });
    expect(rel(r.value, Math.PI)).toBeLessThan(1e-14);
  });

  it('quad-gauss-kronrod integrates exp(-x^2) over the whole line to sqrt(pi) within 1e-12 relative', async () => {
    const r = await solve('quad-gauss-kronrod', { f: 'exp(-x^2)', infinite_limits: 'both' });
    expect(rel(r.value, Math.sqrt(Math.PI))).toBeLessThan(1e-12);
  });

  it('quad-gauss-kronrod integrates the endpoint singularity 1/sqrt(x) on [0, 1] to 2 within 1e-10 relative', async () => {
    const r = await solve('quad-gauss-kronrod', { f: '1/sqrt(x)', a: 0, b: 1 }, { tolerance: 1e-12 });
    expect(rel(r.value, 2)).toBeLessThan(1e-10);
  });

  it('optimize-nelder-mead finds the Rosenbrock minimum (1, 1) within 1e-6', async () => {
    const r = await solve('optimize-nelder-mead', { f: '(1 - x)^2 + 100*(y - x^2)^2', variables: ['x', 'y'], initial: [-1.2, 1] });
    expect(Math.abs(r.minimum.x - 1)).toBeLessThan(1e-6);
    expect(Math.abs(r.minimum.y - 1)).toBeLessThan(1e-6);
  });

  it('optimize-bfgs finds the Rosenbrock minimum (1, 1) within 1e-6 and a quadratic bowl minimum within 1e-8', async () => {
    const r = await solve('optimize-bfgs', { f: '(1 - x)^2 + 100*(y - x^2)^2', variables: ['x', 'y'], initial: [-1.2, 1] });
    expect(Math.abs(r.minimum.x - 1)).toBeLessThan(1e-6);
    const q = await solve('optimize-bfgs', { f: '(a-3)^2 + 2*(b+1)^2 + (c-0.5)^2 + a*b/10', variables: ['a', 'b', 'c'], initial: [0, 0, 0] });
    // Stationary point of the bowl: 2(a-3) + b/10 = 0, 4(b+1) + a/10 = 0, c = 0.5.
    const b = (-4 - 0.3) / (4 - 1 / 200),
      a = 3 - b / 20;
    expect(Math.abs(q.minimum.a - a)).toBeLessThan(1e-8);
    expect(Math.abs(q.minimum.b - b)).toBeLessThan(1e-8);
    expect(Math.abs(q.minimum.c - 0.5)).toBeLessThan(1e-8);
  });
});

describe('linear algebra and signals', () => {
  it('linear-lu solves the textbook 3×3 system to x = (2, 3, -1) with determinant -1 within 1e-14', async () => {
    const r = await solve('linear-lu', {
      A: [
        [2, 1, -1],
        [-3, -1, 2],
        [-2, 1, 2],
      ],
      b: [8, -11, -3],
    });
    [2, 3, -1].forEach((v, i) => expect(Math.abs(r.x[i] - v)).toBeLessThan(1e-14));
    expect(Math.abs(r.determinant + 1)).toBeLessThan(1e-14);
  });

  it('linear-cg solves the 50×50 1-D Laplacian with the all-ones solution within 1e-10', async () => {
    const n = 50;
    const A = Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => (i === j ? 2 : Math.abs(i - j) === 1 ? -1 : 0)));
    const b = Array.from({ length: n }, (_, i) => (i === 0 || i === n - 1 ? 1 : 0));
    const r = await solve('linear-cg', { A, b });
    r.x.forEach((v: number) => expect(Math.abs(v - 1)).toBeLessThan(1e-10));
  });

  it('eigen-symmetric gives the eigenvalues 2 - 2cos(k pi / 11) of the 10×10 second-difference matrix within 1e-13', async () => {
    const n = 10;
    const A = Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => (i === j ? 2 : Math.abs(i - j) === 1 ? -1 : 0)));
    const r = await solve('eigen-symmetric', { A });
    r.eigenvalues.forEach((v: number, k: number) => expect(Math.abs(v - (2 - 2 * Math.cos(((k + 1) * Math.PI) / (n + 1))))).toBeLessThan(1e-13));
  });

  it('least-squares-qr recovers an exact quadratic within 1e-12 and matches the closed-form regression line within 1e-12', async () => {
    const xs = [0, 0.5, 1, 1.5, 2, 2.5, 3];
    const exact = await solve('least-squares-qr', { x: xs, y: xs.map((x) => 1.5 - 2 * x + 0.25 * x * x), degree: 2 });
    [1.5, -2, 0.25].forEach((c, i) => expect(Math.abs(exact.coefficients[i] - c)).toBeLessThan(1e-12));
    const ys = [1.1, 2.9, 5.2, 7.1, 8.8, 11.2];
    const x = [0, 1, 2, 3, 4, 5];
    const line = await solve('least-squares-qr', { A: x.map((v) => [1, v]), b: ys });
    const mx = x.reduce((s, v) => s + v) / x.length,
      my = ys.reduce((s, v) => s + v) / ys.length;
    const slope = x.reduce((s, v, i) => s + (v - mx) * (ys[i]! - my), 0) / x.reduce((s, v) => s + (v - mx) ** 2, 0);
    expect(Math.abs(line.coefficients[1] - slope)).toBeLessThan(1e-12);
    expect(Math.abs(line.coefficients[0] - (my - slope * mx))).toBeLessThan(1e-12);
  });

  it('fft-spectrum finds a 12.5 Hz tone of amplitude 3 and matches a direct DFT for n = 100 within 1e-10', async () => {
    const fs = 100;
    const signal = Array.from({ length: 100 }, (_, i) => 3 * Math.sin((2 * Math.PI * 12 * i) / fs) + 0.7 * Math.cos((2 * Math.PI * 31 * i) / fs));
    const r = await solve('fft-spectrum', { signal, sample_rate: fs });
    expect(r.dominant_frequency).toBe(12);
    expect(Math.abs(r.dominant_amplitude - 3)).toBeLessThan(1e-10);
    for (let k = 0; k < 51; k++) {
      let re = 0,
        im = 0;
      for (let j = 0; j < 100; j++) {
        re += signal[j]! * Math.cos((2 * Math.PI * k * j) / 100);
        im -= signal[j]! * Math.sin((2 * Math.PI * k * j) / 100);
      }
      expect(Math.abs(r.real[k] - re)).toBeLessThan(1e-10);
      expect(Math.abs(r.imag[k] - im)).toBeLessThan(1e-10);
    }
  });
});
