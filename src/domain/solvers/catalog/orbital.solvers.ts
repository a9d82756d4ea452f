import { solveKepler } from '../numeric/kepler.js';
import { dopri45 } from '../numeric/ode.js';
import { input, invalid, MAX_ITERATIONS, TOLERANCE, unprocessable, type SolverDef } from '../solver-def.js';

const MU_EARTH = 3.986004418e14;
const DEG = 180 / Math.PI;

export const keplerEquation: SolverDef = {
  id: 'kepler-equation',
  name: "Kepler's equation",
  domain: 'orbital_mechanics',
  method: "Halley iteration from Danby's starter (elliptic), Newton (hyperbolic), Barker's cubic (parabolic)",
  operator_chain: ['KO42', 'OM8', 'OM9'],
  unit: 'rad',
  version: '1.0.0',
  description:
    'Finds the eccentric anomaly E from the mean anomaly M and eccentricity e (M = E − e·sin E), then the true anomaly and, given the semi-major axis (or periapsis distance for e = 1), the radius. Hyperbolic (e > 1) and parabolic (e = 1) orbits are handled too.',
  inputs: [
    input('eccentricity', 'number', 'Orbital eccentricity e', { min: 0, max: 100 }),
    input('mean_anomaly', 'number', 'Mean anomaly M', { unit: 'rad', min: -1e6, max: 1e6 }),
    input('semi_major_axis', 'number', 'Semi-major axis a (negative for hyperbolas is not needed: give |a|); periapsis distance q when e = 1', {
      unit: 'm',
      required: false,
      min: 0,
      max: 1e20,
    }),
  ],
  options: [MAX_ITERATIONS(100, 1000)],
  example: { eccentricity: 0.4, mean_anomaly: 4.108505059513245 },
  async run(a, o) {
    const e = a.num('eccentricity'),
      M = a.num('mean_anomaly');
    const s = solveKepler(M, e, o.int('max_iterations'));
    let radius: number | null = null;
    if (a.has('semi_major_axis')) {
      const sa = a.num('semi_major_axis');
      if (e < 1) radius = sa * (1 - e * Math.cos(s.anomaly));
      else if (e > 1) radius = sa * (e * Math.cosh(s.anomaly) - 1);
      else radius = sa * (1 + s.anomaly * s.anomaly);
    }
    const kind = e < 1 ? 'elliptic' : e > 1 ? 'hyperbolic' : 'parabolic';
    return {
      result: {
        orbit: kind,
        anomaly: s.anomaly,
        anomaly_deg: s.anomaly * DEG,
        true_anomaly: s.trueAnomaly,
        true_anomaly_deg: s.trueAnomaly * DEG,
        radius,
        residual: s.residual,
      },
      converged: true,
      iterations: s.iterations,
      error_estimate: s.residual,
    };
  },
};

export const hohmannTransfer: SolverDef = {
  id: 'orbit-hohmann',
  name: 'Hohmann transfer between circular orbits',
  domain: 'orbital_mechanics',
  method: 'Vis-viva transfer design, verified by Dormand-Prince propagation of the transfer arc',
  operator_chain: ['KO42', 'OM11', 'OM12', 'OM13'],
  unit: 'm/s',
  version: '1.0.0',
  description:
    'Designs the two-impulse Hohmann transfer between coplanar circular orbits of radii r1 and r2 around a body of gravitational parameter μ: both burns, total Δv and transfer time. Then propagates the transfer ellipse numerically from the first burn and reports how closely it arrives at r2.',
  inputs: [
    input('r1', 'number', 'Radius of the initial circular orbit', { unit: 'm', min: 1, max: 1e16 }),
    input('r2', 'number', 'Radius of the target circular orbit', { unit: 'm', min: 1, max: 1e16 }),
    input('mu', 'number', 'Gravitational parameter GM of the central body (Earth by default)', { unit: 'm^3/s^2', default: MU_EARTH, min: 1, max: 1e25 }),
  ],
  options: [TOLERANCE(1e-12, 1e-14)],
  example: { r1: 6678137, r2: 42164137 },
  async run(a, o, ctl) {
    const r1 = a.num('r1'),
      r2 = a.num('r2'),
      mu = a.num('mu');
    if (r1 === r2) unprocessable('r1 equals r2: no transfer is needed');
    const at = (r1 + r2) / 2;
    const v1 = Math.sqrt(mu / r1),
      v2 = Math.sqrt(mu / r2);
    const vp = Math.sqrt(mu * (2 / r1 - 1 / at)),
      va = Math.sqrt(mu * (2 / r2 - 1 / at));
    const dv1 = vp - v1,
      dv2 = v2 - va;
    const tof = Math.PI * Math.sqrt((at * at * at) / mu);
    const f = (_t: number, y: Float64Array, dy: Float64Array) => {
      const r3 = Math.hypot(y[0]!, y[1]!) ** 3;
      dy[0] = y[2]!;
      dy[1] = y[3]!;
      dy[2] = (-mu * y[0]!) / r3;
      dy[3] = (-mu * y[1]!) / r3;
    };
    const sol = await dopri45(f, 0, Float64Array.from([r1, 0, 0, vp]), tof, {
      rtol: o.num('tolerance'),
      atol: 1e-9 * Math.min(r1, r2),
      maxSteps: 1_000_000,
      ctl,
    });
    const arrival = Math.hypot(sol.y[0]!, sol.y[1]!);
    const arrivalSpeed = Math.hypot(sol.y[2]!, sol.y[3]!);
    return {
      result: {
        delta_v1: dv1,
        delta_v2: dv2,
        delta_v_total: Math.abs(dv1) + Math.abs(dv2),
        transfer_time: tof,
        transfer_semi_major_axis: at,
        transfer_eccentricity: Math.abs(r2 - r1) / (r1 + r2),
        propagated_arrival_radius: arrival,
        arrival_radius_error: Math.abs(arrival - r2) / r2,
        propagated_arrival_speed: arrivalSpeed,
      },
      converged: true,
      iterations: sol.steps,
      error_estimate: Math.abs(arrival - r2) / r2,
    };
  },
};

function stumpff(psi: number): [number, number] {
  if (psi > 1e-6) {
    const s = Math.sqrt(psi);
    return [(1 - Math.cos(s)) / psi, (s - Math.sin(s)) / (s * psi)];
  }
  if (psi < -1e-6) {
    const s = Math.sqrt(-psi);
    return [(Math.cosh(s) - 1) / -psi, (Math.sinh(s) - s) / (s * -psi)];
  }
  return [0.5 - psi / 24 + (psi * psi) / 720, 1 / 6 - psi / 120 + (psi * psi) / 5040];
}

export const lambertTransfer: SolverDef = {
  id: 'orbit-lambert',
  name: "Lambert's problem (two-point transfer)",
  domain: 'orbital_mechanics',
  method: 'Universal-variable formulation with Stumpff functions, bisection on ψ (Vallado), single revolution',
  operator_chain: ['KO42', 'OM1', 'OM5'],
  unit: 'm/s',
  version: '1.0.0',
  description:
    'Finds the Keplerian orbit that goes from position r1 to position r2 in a given time of flight (the core of rendezvous and interplanetary transfer design) and returns the departure and arrival velocity vectors, single revolution, prograde or retrograde.',
  inputs: [
    input('r1', 'vector', 'Departure position [x, y, z]', { unit: 'm', min: -1e16, max: 1e16, min_items: 3, max_items: 3 }),
    input('r2', 'vector', 'Arrival position [x, y, z]', { unit: 'm', min: -1e16, max: 1e16, min_items: 3, max_items: 3 }),
    input('time_of_flight', 'number', 'Time of flight', { unit: 's', min: 1e-3, max: 1e12 }),
    input('mu', 'number', 'Gravitational parameter GM of the central body (Earth by default)', { unit: 'm^3/s^2', default: MU_EARTH, min: 1, max: 1e25 }),
    input('prograde', 'boolean', 'Prograde (counter-clockwise about +z) transfer; false for retrograde', { default: true }),
  ],
  options: [TOLERANCE(1e-12, 1e-15), MAX_ITERATIONS(500, 10_000)],
  example: { r1: [5000e3, 10000e3, 2100e3], r2: [-14600e3, 2500e3, 7000e3], time_of_flight: 3600, mu: 3.986e14 },
  async run(a, o) {
    const R1 = a.vec('r1'),
      R2 = a.vec('r2'),
      tof = a.num('time_of_flight'),
      mu = a.num('mu');
    const r1 = Math.hypot(R1[0]!, R1[1]!, R1[2]!),
      r2 = Math.hypot(R2[0]!, R2[1]!, R2[2]!);
    if (r1 === 0) invalid('r1', 'must not be the origin');
    if (r2 === 0) invalid('r2', 'must not be the origin');
    const cosDnu = Math.max(-1, Math.min(1, (R1[0]! * R2[0]! + R1[1]! * R2[1]! + R1[2]! * R2[2]!) / (r1 * r2)));
    const crossZ = R1[0]! * R2[1]! - R1[1]! * R2[0]!;
    let dnu = Math.acos(cosDnu);
    if (a.bool('prograde') ? crossZ < 0 : crossZ >= 0) dnu = 2 * Math.PI - dnu;
    const A = Math.sin(dnu) * Math.sqrt((r1 * r2) / (1 - cosDnu));
    if (!Number.isFinite(A) || Math.abs(A) < 1e-12 * Math.sqrt(r1 * r2)) {
      unprocessable('r1 and r2 are collinear with the central body (transfer angle 0 or 180°): the transfer plane is undefined');
    }
    const sqrtMu = Math.sqrt(mu);
    let lo = -4 * Math.PI,
      hi = 4 * Math.PI * Math.PI,
      psi = 0;
    let y = 0,
      it = 0,
      dt = 0;
    const maxIt = o.int('max_iterations'),
      tol = o.num('tolerance');
    for (; it < maxIt; it++) {
      const [c2, c3] = stumpff(psi);
      y = r1 + r2 + (A * (psi * c3 - 1)) / Math.sqrt(c2);
      if (A > 0 && y < 0) {
        // y < 0 means ψ is below the admissible range; the flight time grows with ψ, so raise the floor.
        lo = psi;
        psi = 0.5 * (lo + hi);
        continue;
      }
      const chi = Math.sqrt(y / c2);
      dt = (chi * chi * chi * c3 + A * Math.sqrt(y)) / sqrtMu;
      if (Math.abs(dt - tof) <= tol * tof) break;
      if (dt <= tof) lo = psi;
      else hi = psi;
      psi = 0.5 * (lo + hi);
      if (hi - lo < 1e-15 * Math.max(1, Math.abs(psi))) break;
    }
    if (it >= maxIt || Math.abs(dt - tof) > Math.sqrt(tol) * tof) {
      unprocessable(
        `No single-revolution transfer matches a time of flight of ${tof} s (closest ${dt} s); the time may be too short for this geometry or need several revolutions`,
      );
    }
    const f = 1 - y / r1,
      g = A * Math.sqrt(y / mu),
      gdot = 1 - y / r2;
    const v1 = [0, 1, 2].map((k) => (R2[k]! - f * R1[k]!) / g);
    const v2 = [0, 1, 2].map((k) => (gdot * R2[k]! - R1[k]!) / g);
    const speed1 = Math.hypot(v1[0]!, v1[1]!, v1[2]!);
    const energy = (speed1 * speed1) / 2 - mu / r1;
    return {
      result: { v1, v2, transfer_angle_deg: dnu * DEG, semi_major_axis: energy < 0 ? -mu / (2 * energy) : null, psi, time_of_flight_error: Math.abs(dt - tof) },
      converged: true,
      iterations: it + 1,
      error_estimate: Math.abs(dt - tof) / tof,
    };
  },
};
