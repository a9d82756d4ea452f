import { describe, expect, it } from 'vitest';
import { rel, solve } from './solve-helper.js';

// Each solver against an analytic solution or a published value; the tolerance is in the test name.

describe('partial differential equations', () => {
  it('pde-heat-1d decays the first sine mode as exp(-alpha pi^2 t / L^2) within 1e-4 relative', async () => {
    const L = 2,
      alpha = 0.05,
      t = 4;
    const r = await solve('pde-heat-1d', { length: L, diffusivity: alpha, t_end: t, initial: '10*sin(pi*x/L)', nx: 200, nt: 2000 });
    const decay = Math.exp((-alpha * Math.PI ** 2 * t) / (L * L));
    const mid = r.x.indexOf(1);
    expect(rel(r.u[mid], 10 * decay)).toBeLessThan(1e-4);
    r.x.forEach((x: number, i: number) => expect(Math.abs(r.u[i] - 10 * decay * Math.sin((Math.PI * x) / L))).toBeLessThan(1e-3));
  });

  it('pde-wave-1d follows the standing wave cos(c pi t / L) sin(pi x / L) within 1e-4 of the amplitude', async () => {
    const r = await solve('pde-wave-1d', { length: 1, wave_speed: 2, t_end: 0.3, displacement: 'sin(pi*x/L)', nx: 400, courant: 0.5 });
    r.x.forEach((x: number, i: number) => expect(Math.abs(r.u[i] - Math.cos(2 * Math.PI * 0.3) * Math.sin(Math.PI * x))).toBeLessThan(1e-4));
    expect(r.energy_relative_drift).toBeLessThan(1e-10);
  });

  it('pde-wave-1d refuses a Courant number above 1 with 422', async () => {
    const { refusal } = await import('./solve-helper.js');
    const err = await refusal('pde-wave-1d', { length: 1, wave_speed: 1, t_end: 1, displacement: 'sin(pi*x)', courant: 1.5 });
    expect(err.code).toBe('UNPROCESSABLE');
    expect(err.message).toContain('courant');
  });

  it('pde-poisson-2d reproduces the harmonic function exp(x) sin(y) from its boundary within 1e-4', async () => {
    const r = await solve('pde-poisson-2d', { source: '0', boundary: 'exp(x)*sin(y)', nx: 40, ny: 40 });
    r.u.forEach((row: number[], j: number) => row.forEach((u, i) => expect(Math.abs(u - Math.exp(r.x[i]) * Math.sin(r.y[j]))).toBeLessThan(1e-4)));
  });

  it('pde-poisson-2d solves laplacian u = -2 pi^2 sin(pi x) sin(pi y) with second-order error below 2e-3', async () => {
    const r = await solve('pde-poisson-2d', { source: '-2*pi^2*sin(pi*x)*sin(pi*y)', nx: 32, ny: 32 });
    expect(Math.abs(r.u_center - 1)).toBeLessThan(2e-3);
  });
});

describe('orbital mechanics', () => {
  it("kepler-equation reproduces Vallado's example 2-1 (M = 235.4 deg, e = 0.4, E = 220.512074767522 deg) within 1e-6 deg", async () => {
    const r = await solve('kepler-equation', { eccentricity: 0.4, mean_anomaly: (235.4 * Math.PI) / 180 });
    expect(Math.abs(r.anomaly_deg - 220.512074767522)).toBeLessThan(1e-6);
  });

  it('kepler-equation satisfies M = e sinh H - H for a hyperbola and M = D + D^3/3 for a parabola within 1e-12', async () => {
    const h = await solve('kepler-equation', { eccentricity: 2.5, mean_anomaly: 7.3 });
    expect(Math.abs(2.5 * Math.sinh(h.anomaly) - h.anomaly - 7.3)).toBeLessThan(1e-12);
    const p = await solve('kepler-equation', { eccentricity: 1, mean_anomaly: 0.9 });
    expect(Math.abs(p.anomaly + p.anomaly ** 3 / 3 - 0.9)).toBeLessThan(1e-12);
  });

  it("orbit-hohmann reproduces Vallado's example 6-1 (LEO at 191.34 km to GEO: total 3.935224 km/s, 5.256713 h) within 1e-5 relative", async () => {
    const r = await solve('orbit-hohmann', { r1: 6569.48111e3, r2: 42159.48568e3, mu: 3.986004418e14 });
    expect(rel(r.delta_v_total, 3935.224)).toBeLessThan(1e-5);
    expect(rel(r.transfer_time / 3600, 5.256713)).toBeLessThan(1e-5);
    expect(r.arrival_radius_error).toBeLessThan(1e-7);
  });

  it("orbit-lambert reproduces Curtis's example 5.2 velocities (as printed, 4-5 digits) within 0.5 m/s", async () => {
    const r = await solve('orbit-lambert', { r1: [5000e3, 10000e3, 2100e3], r2: [-14600e3, 2500e3, 7000e3], time_of_flight: 3600, mu: 3.986e14 });
    [-5992.5, 1925.4, 3245.6].forEach((v, i) => expect(Math.abs(r.v1[i] - v)).toBeLessThan(0.5));
    [-3312.5, -4196.6, -385.29].forEach((v, i) => expect(Math.abs(r.v2[i] - v)).toBeLessThan(0.5));
  });
});

describe('quantum, nuclear, relativity', () => {
  const HBAR2_2ME = (1.054571817e-34 ** 2 / (2 * 9.1093837015e-31) / 1.602176634e-19) * 1e18;

  it('schrodinger-1d gives the infinite-well energies n^2 pi^2 hbar^2 / (2 m L^2) within 1e-5 relative', async () => {
    const r = await solve('schrodinger-1d', { potential: '0', x_min: 0, x_max: 1, grid: 4000, states: 3 });
    [1, 2, 3].forEach((n, i) => expect(rel(r.energies[i], n * n * Math.PI ** 2 * HBAR2_2ME)).toBeLessThan(1e-5));
  });

  it('schrodinger-1d gives the harmonic oscillator ladder (n + 1/2) hbar omega within 1e-4 relative', async () => {
    const k = 1 / (2 * HBAR2_2ME);
    const r = await solve('schrodinger-1d', { potential: '0.5*k*x^2', x_min: -3, x_max: 3, grid: 2000, states: 4, parameters: { k } });
    [0.5, 1.5, 2.5, 3.5].forEach((E, i) => expect(rel(r.energies[i], E)).toBeLessThan(1e-4));
  });

  it('decay-bateman matches the two-member Bateman solution within 1e-12 relative', async () => {
    const [h1, h2] = [100, 37];
    const r = await solve('decay-bateman', { half_lives: [h1, h2], initial: [1e6, 0, 0], times: [50, 200, 1000] });
    const [l1, l2] = [Math.LN2 / h1, Math.LN2 / h2];
    r.times.forEach((t: number, k: number) => {
      expect(rel(r.amounts[k][1], ((1e6 * l1) / (l2 - l1)) * (Math.exp(-l1 * t) - Math.exp(-l2 * t)))).toBeLessThan(1e-12);
    });
  });

  it('decay-bateman handles equal half-lives (N2 = N0 lambda t exp(-lambda t)) within 1e-12 relative', async () => {
    const r = await solve('decay-bateman', { half_lives: [60, 60], initial: [1000, 0, 0], times: [30, 120] });
    const l = Math.LN2 / 60;
    r.times.forEach((t: number, k: number) => expect(rel(r.amounts[k][1], 1000 * l * t * Math.exp(-l * t))).toBeLessThan(1e-12));
    expect(r.bateman_max_relative_difference).toBeNull();
  });

  it('decay-bateman keeps a trace daughter in secular equilibrium (N2/N1 = lambda1/lambda2) within 1e-9 relative across 22 orders of magnitude', async () => {
    const r = await solve('decay-bateman', { half_lives: [1.41e17, 60], initial: [1e20, 0, 0], times: [3600] });
    expect(rel(r.amounts[0][1] / r.amounts[0][0], 60 / 1.41e17)).toBeLessThan(1e-9);
    expect(rel(r.activities[0][1], r.activities[0][0])).toBeLessThan(1e-9);
  });

  it("relativity-perihelion gives Mercury's 42.98 arcsec per century within 0.01 and agrees with 6 pi GM/(c^2 a (1-e^2)) within 1e-6", async () => {
    const r = await solve('relativity-perihelion', { periapsis: 46.0012e9, apoapsis: 69.8169e9 });
    expect(Math.abs(r.precession_per_century_arcsec - 42.98)).toBeLessThan(0.01);
    expect(rel(r.precession_per_orbit_rad, r.first_order_per_orbit_rad)).toBeLessThan(1e-6);
  });

  it('relativity-time-dilation gives the GPS clock offset of +38.5 us/day within 0.3 us/day', async () => {
    const r = await solve('relativity-time-dilation', { semi_major_axis: 26561.75e3, eccentricity: 0.01 });
    expect(Math.abs(r.offset_us_per_day - 38.5)).toBeLessThan(0.3);
  });

  it('relativity-time-dilation matches the exact circular-orbit rate sqrt(1 - 3GM/(a c^2)) within 1e-12 relative', async () => {
    const mu = 3.986004418e14,
      a = 7e6,
      c = 299792458;
    const r = await solve('relativity-time-dilation', { semi_major_axis: a, eccentricity: 0, reference_speed: 0, reference_radius: 1e16 });
    const orbit = Math.sqrt(1 - (3 * mu) / (a * c * c)),
      ref = Math.sqrt(1 - (2 * mu) / (1e16 * c * c));
    expect(rel(1 + r.rate_offset, orbit / ref)).toBeLessThan(1e-12);
  });
});

describe('engineering and life sciences', () => {
  it('colebrook-friction gives the Moody-chart value 0.0185 at Re = 1e5, eps/D = 1e-4 (within 0.5 %) and satisfies the Colebrook equation within 1e-13', async () => {
    const r = await solve('colebrook-friction', { reynolds: 1e5, relative_roughness: 1e-4 });
    expect(rel(r.friction_factor, 0.0185)).toBeLessThan(0.005);
    const x = 1 / Math.sqrt(r.friction_factor);
    expect(Math.abs(x + 2 * Math.log10(1e-4 / 3.7 + 2.51 / (1e5 * Math.sqrt(r.friction_factor))))).toBeLessThan(1e-13);
    const laminar = await solve('colebrook-friction', { reynolds: 1000 });
    expect(laminar.friction_factor).toBe(0.064);
  });

  it("blasius-boundary-layer finds f''(0) = 0.332057336215 within 1e-9 and the 0.664 momentum-thickness coefficient within 1e-6 relative", async () => {
    const r = await solve('blasius-boundary-layer', { velocity: 10, x: 0.5, kinematic_viscosity: 1.5e-5 });
    expect(Math.abs(r.f_wall_curvature - 0.332057336215)).toBeLessThan(1e-9);
    expect(Math.abs(r.eta_99 - 4.91)).toBeLessThan(0.01);
    const scale = Math.sqrt((1.5e-5 * 0.5) / 10);
    expect(rel(r.momentum_thickness / scale, 2 * 0.332057336215)).toBeLessThan(1e-6);
    expect(rel(r.displacement_thickness / scale, 1.7207876573)).toBeLessThan(1e-6);
  });

  it('rlc-transient follows the closed-form underdamped and overdamped step responses within 1e-8', async () => {
    const under = await solve('rlc-transient', { resistance: 10, inductance: 0.1, capacitance: 1e-4, amplitude: 12, t_end: 0.1, samples: 21 });
    expect(under.regime).toBe('underdamped');
    expect(under.closed_form_max_deviation).toBeLessThan(1e-8);
    const over = await solve('rlc-transient', { resistance: 200, inductance: 0.1, capacitance: 1e-4, amplitude: 5, v0: 1, i0: 0.01, t_end: 0.2 });
    expect(over.regime).toBe('overdamped');
    expect(over.closed_form_max_deviation).toBeLessThan(1e-8);
  });

  it('nodal-analysis solves a divider and a Wheatstone bridge exactly (within 1e-12) with zero power balance', async () => {
    const divider = await solve('nodal-analysis', {
      elements: [
        { kind: 'voltage_source', a: 1, b: 0, value: 9 },
        { kind: 'resistor', a: 1, b: 2, value: 1000 },
        { kind: 'resistor', a: 2, b: 0, value: 2000 },
      ],
    });
    expect(Math.abs(divider.node_voltages[2] - 6)).toBeLessThan(1e-12);
    // Bridge: 10 V across R1-R2 and R3-R4 arms, 100 ohm galvanometer between the midpoints.
    const bridge = await solve('nodal-analysis', {
      elements: [
        { kind: 'voltage_source', a: 1, b: 0, value: 10 },
        { kind: 'resistor', a: 1, b: 2, value: 100 },
        { kind: 'resistor', a: 2, b: 0, value: 200 },
        { kind: 'resistor', a: 1, b: 3, value: 150 },
        { kind: 'resistor', a: 3, b: 0, value: 150 },
        { kind: 'resistor', a: 2, b: 3, value: 100 },
      ],
    });
    // Node equations by hand: 5·V2 − 2·V3 = 20 and −3·V2 + 7·V3 = 20, so V2 = 180/29, V3 = 160/29.
    expect(Math.abs(bridge.node_voltages[2] - 180 / 29)).toBeLessThan(1e-12);
    expect(Math.abs(bridge.node_voltages[3] - 160 / 29)).toBeLessThan(1e-12);
    expect(Math.abs(bridge.power_balance)).toBeLessThan(1e-12);
  });

  it('epidemic-seir ends at the final-size relation s = exp(-R0 (1 - s)) within 1e-4, for SIR and for SEIR', async () => {
    for (const sigma of [0, 0.2]) {
      const r = await solve('epidemic-seir', { population: 1e7, beta: 0.3, gamma: 0.1, sigma, initial_infected: 1, days: 2000 });
      const s = r.final.susceptible / 1e7;
      expect(Math.abs(s - Math.exp(-3 * (1 - s)))).toBeLessThan(1e-4);
      expect(r.peak_reached).toBe(true);
      expect(r.model).toBe(sigma > 0 ? 'SEIR' : 'SIR');
    }
  });

  it('lotka-volterra measures the small-cycle period 2 pi / sqrt(alpha gamma) within 1e-3 relative and conserves its invariant within 1e-8', async () => {
    const r = await solve('lotka-volterra', { alpha: 1, beta: 0.5, gamma: 2, delta: 0.25, prey: 8.08, predators: 2.02, t_end: 40 });
    expect(rel(r.period, (2 * Math.PI) / Math.sqrt(2))).toBeLessThan(1e-3);
    expect(r.invariant_relative_drift).toBeLessThan(1e-8);
  });

  it('lorenz-lyapunov gives the largest exponent 0.9056 within 0.03 and the exponent sum -(sigma + 1 + beta) within 1e-3', async () => {
    const r = await solve('lorenz-lyapunov', { duration: 1000 });
    expect(Math.abs(r.exponents[0] - 0.9056)).toBeLessThan(0.03);
    expect(Math.abs(r.exponents[1])).toBeLessThan(0.03);
    expect(Math.abs(r.sum - r.expected_sum)).toBeLessThan(1e-3);
  });
});
