import { dopri45 } from '../numeric/ode.js';
import { input, MAX_ITERATIONS, TOLERANCE, invalid, unprocessable, type SolverDef } from '../solver-def.js';

const G_SI = 6.6743e-11;

export const nbodyVerlet: SolverDef = {
  id: 'nbody-verlet',
  name: 'Gravitational N-body, velocity Verlet',
  domain: 'mechanics',
  method: 'Velocity Verlet (kick-drift-kick leapfrog), symplectic, 2nd order, Plummer softening',
  operator_chain: ['KO42', 'NM21', 'NM16'],
  unit: 'm',
  version: '1.0.0',
  description:
    'Advances N point masses under mutual Newtonian gravity with the symplectic velocity Verlet scheme, which keeps the energy error bounded over long runs. Returns final positions and velocities, total energy and angular momentum with their relative drift, and sampled positions.',
  inputs: [
    input('masses', 'vector', 'Mass of each body', { unit: 'kg', min: 0, max: 1e40, min_items: 2, max_items: 64 }),
    input('positions', 'matrix', 'Initial position of each body, one [x, y, z] row per body', {
      unit: 'm',
      min: -1e20,
      max: 1e20,
      min_items: 2,
      max_items: 64,
    }),
    input('velocities', 'matrix', 'Initial velocity of each body, one [vx, vy, vz] row per body', {
      unit: 'm/s',
      min: -3e8,
      max: 3e8,
      min_items: 2,
      max_items: 64,
    }),
    input('dt', 'number', 'Time step', { unit: 's', min: 1e-9, max: 1e12 }),
    input('steps', 'integer', 'Number of steps', { min: 1, max: 5_000_000 }),
    input('softening', 'number', 'Plummer softening length added to every separation', { unit: 'm', default: 0, min: 0, max: 1e15 }),
    input('gravitational_constant', 'number', 'G; keep the SI value unless you use scaled units', {
      unit: 'm^3/(kg s^2)',
      default: G_SI,
      min: 1e-20,
      max: 1e3,
    }),
    input('samples', 'integer', 'Number of position snapshots, first and last included', { default: 2, min: 2, max: 201 }),
  ],
  options: [],
  example: {
    masses: [1.98847e30, 5.9722e24],
    positions: [
      [0, 0, 0],
      [1.495978707e11, 0, 0],
    ],
    velocities: [
      [0, 0, 0],
      [0, 29784.7, 0],
    ],
    dt: 3600,
    steps: 8766,
    samples: 5,
  },
  async run(a, _o, ctl) {
    const m = a.vec('masses');
    const n = m.length;
    const x0 = a.mat('positions');
    const v0 = a.mat('velocities');
    if (x0.length !== n || x0[0]!.length !== 3) invalid('positions', `needs ${n} rows of [x, y, z], one per mass`);
    if (v0.length !== n || v0[0]!.length !== 3) invalid('velocities', `needs ${n} rows of [vx, vy, vz], one per mass`);
    const dt = a.num('dt'),
      steps = a.int('steps'),
      eps2 = a.num('softening') ** 2,
      G = a.num('gravitational_constant');
    if (n * n * steps > 4e8) unprocessable(`bodies² × steps is ${n * n * steps}; keep it under 4e8 (fewer steps or bodies)`);
    const x = Float64Array.from(x0.flat()),
      v = Float64Array.from(v0.flat()),
      acc = new Float64Array(3 * n);
    const accelerate = () => {
      acc.fill(0);
      for (let i = 0; i < n; i++) {
        for (let j = i + 1; j < n; j++) {
          const dx = x[3 * j]! - x[3 * i]!,
            dy = x[3 * j + 1]! - x[3 * i + 1]!,
            dz = x[3 * j + 2]! - x[3 * i + 2]!;
          const r2 = dx * dx + dy * dy + dz * dz + eps2;
          if (r2 === 0) unprocessable(`bodies ${i} and ${j} collide (zero separation); add softening`);
          const inv3 = 1 / (r2 * Math.sqrt(r2));
          const fi = G * m[j]! * inv3,
            fj = G * m[i]! * inv3;
          acc[3 * i] = acc[3 * i]! + fi * dx;
          acc[3 * i + 1] = acc[3 * i + 1]! + fi * dy;
          acc[3 * i + 2] = acc[3 * i + 2]! + fi * dz;
          acc[3 * j] = acc[3 * j]! - fj * dx;
          acc[3 * j + 1] = acc[3 * j + 1]! - fj * dy;
          acc[3 * j + 2] = acc[3 * j + 2]! - fj * dz;
        }
      }
    };
    const invariants = () => {
      let kinetic = 0,
        potential = 0;
      const L: [number, number, number] = [0, 0, 0];
      for (let i = 0; i < n; i++) {
        const [px, py, pz] = [x[3 * i]!, x[3 * i + 1]!, x[3 * i + 2]!];
        const [qx, qy, qz] = [v[3 * i]!, v[3 * i + 1]!, v[3 * i + 2]!];
        kinetic += 0.5 * m[i]! * (qx * qx + qy * qy + qz * qz);
        L[0] += m[i]! * (py * qz - pz * qy);
        L[1] += m[i]! * (pz * qx - px * qz);
        L[2] += m[i]! * (px * qy - py * qx);
        for (let j = i + 1; j < n; j++) {
          const r = Math.sqrt((x[3 * j]! - px) ** 2 + (x[3 * j + 1]! - py) ** 2 + (x[3 * j + 2]! - pz) ** 2 + eps2);
          potential -= (G * m[i]! * m[j]!) / r;
        }
      }
      return { energy: kinetic + potential, angular_momentum: L };
    };
    const start = invariants();
    const samples = a.int('samples');
    const every = steps / (samples - 1);
    const snapshots: number[][][] = [x0.map((r) => r.slice())];
    const snapshotTimes = [0];
    accelerate();
    let nextSample = 1;
    for (let s = 1; s <= steps; s++) {
      for (let k = 0; k < 3 * n; k++) v[k] = v[k]! + 0.5 * dt * acc[k]!;
      for (let k = 0; k < 3 * n; k++) x[k] = x[k]! + dt * v[k]!;
      accelerate();
      for (let k = 0; k < 3 * n; k++) v[k] = v[k]! + 0.5 * dt * acc[k]!;
      if (s === steps || s >= Math.round(nextSample * every)) {
        if (!x.every(Number.isFinite) || !v.every(Number.isFinite)) unprocessable(`the integration blew up by step ${s}; use a smaller dt or softening`);
        snapshots.push(rows(x, n));
        snapshotTimes.push(s * dt);
        nextSample++;
      }
      if ((s & 1023) === 0) await ctl.checkpoint(s, steps, 'Verlet steps');
    }
    const end = invariants();
    const drift = Math.abs((end.energy - start.energy) / (start.energy || 1));
    return {
      result: {
        time: steps * dt,
        positions: rows(x, n),
        velocities: rows(v, n),
        energy_initial: start.energy,
        energy_final: end.energy,
        energy_relative_drift: drift,
        angular_momentum_initial: start.angular_momentum,
        angular_momentum_final: end.angular_momentum,
        snapshots: { t: snapshotTimes, positions: snapshots },
      },
      converged: true,
      iterations: steps,
      error_estimate: drift,
    };
  },
};

function rows(flat: Float64Array, n: number): number[][] {
  return Array.from({ length: n }, (_, i) => [flat[3 * i]!, flat[3 * i + 1]!, flat[3 * i + 2]!]);
}

export const projectileDrag: SolverDef = {
  id: 'projectile-drag',
  name: 'Projectile with quadratic air drag',
  domain: 'mechanics',
  method: 'Dormand-Prince 5(4) with event location (apex and ground impact)',
  operator_chain: ['KO42', 'KO8', 'FL8'],
  unit: 'm',
  version: '1.0.0',
  description:
    'Flies a point projectile with drag F = ½·ρ·Cd·A·v² opposite the velocity in uniform gravity, and finds the apex and the ground impact as events of the integration. Returns range, flight time, maximum height and impact speed and angle. With Cd = 0 it reproduces the vacuum formulas.',
  inputs: [
    input('speed', 'number', 'Launch speed', { unit: 'm/s', min: 0.001, max: 1e4 }),
    input('angle', 'number', 'Launch elevation above horizontal', { unit: 'deg', min: -89.9, max: 90 }),
    input('height', 'number', 'Launch height above the ground', { unit: 'm', default: 0, min: 0, max: 1e5 }),
    input('mass', 'number', 'Projectile mass', { unit: 'kg', min: 1e-6, max: 1e6 }),
    input('drag_coefficient', 'number', 'Drag coefficient Cd (0.47 for a sphere)', { default: 0.47, min: 0, max: 5 }),
    input('area', 'number', 'Frontal area', { unit: 'm^2', min: 0, max: 1e3 }),
    input('air_density', 'number', 'Air density', { unit: 'kg/m^3', default: 1.225, min: 0, max: 100 }),
    input('gravity', 'number', 'Gravitational acceleration', { unit: 'm/s^2', default: 9.80665, min: 0.01, max: 1000 }),
  ],
  options: [TOLERANCE(1e-10, 1e-13), MAX_ITERATIONS(100_000, 2_000_000)],
  example: { speed: 50, angle: 45, height: 0, mass: 0.145, drag_coefficient: 0.3, area: 0.0042, air_density: 1.225 },
  async run(a, o, ctl) {
    const k = (0.5 * a.num('air_density') * a.num('drag_coefficient') * a.num('area')) / a.num('mass');
    const g = a.num('gravity');
    const theta = (a.num('angle') * Math.PI) / 180;
    const speed = a.num('speed');
    const f = (_t: number, y: Float64Array, dy: Float64Array) => {
      const v = Math.hypot(y[2]!, y[3]!);
      dy[0] = y[2]!;
      dy[1] = y[3]!;
      dy[2] = -k * v * y[2]!;
      dy[3] = -g - k * v * y[3]!;
    };
    const base = { rtol: o.num('tolerance'), atol: 1e-12, maxSteps: o.int('max_iterations'), ctl };
    const horizon = 1e7;
    let state: Float64Array = Float64Array.from([0, a.num('height'), speed * Math.cos(theta), speed * Math.sin(theta)]);
    let t = 0,
      steps = 0,
      apex = state[1]!;
    if (state[3]! > 0) {
      const up = await dopri45(f, 0, state, horizon, { ...base, outputs: [horizon], event: { g: (_t, y) => y[3]!, direction: -1 } });
      if (!up.eventHit) unprocessable('the projectile never reached its apex within the time horizon');
      t = up.t;
      state = up.y;
      apex = state[1]!;
      steps += up.steps;
    }
    if (state[1]! > 0) {
      const down = await dopri45(f, t, state, t + horizon, { ...base, outputs: [t + horizon], event: { g: (_t, y) => y[1]!, direction: -1 } });
      if (!down.eventHit) unprocessable('the projectile never reached the ground within the time horizon');
      t = down.t;
      state = down.y;
      steps += down.steps;
    }
    const impactSpeed = Math.hypot(state[2]!, state[3]!);
    return {
      result: {
        range: state[0]!,
        flight_time: t,
        max_height: apex,
        impact_speed: impactSpeed,
        impact_angle_deg: (Math.atan2(-state[3]!, state[2]!) * 180) / Math.PI,
        drag_per_mass: k,
      },
      converged: true,
      iterations: steps,
      error_estimate: null,
    };
  },
};
