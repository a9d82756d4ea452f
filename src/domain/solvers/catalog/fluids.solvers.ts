import { dopri45 } from '../numeric/ode.js';
import { input, MAX_ITERATIONS, TOLERANCE, unprocessable, type SolverDef } from '../solver-def.js';

export const colebrook: SolverDef = {
  id: 'colebrook-friction',
  name: 'Pipe friction factor, Colebrook-White',
  domain: 'fluids',
  method: 'Newton iteration on x = 1/√f of the implicit Colebrook-White equation, Haaland starting value',
  operator_chain: ['KO42', 'FL3', 'FL11', 'FL17'],
  unit: '',
  version: '1.0.0',
  description:
    'Solves the Colebrook-White equation 1/√f = −2·log10(ε/(3.7·D) + 2.51/(Re·√f)) for the Darcy friction factor of turbulent pipe flow (the Moody chart), or f = 64/Re for laminar flow. Given pipe length, diameter, velocity and density it also returns the Darcy-Weisbach pressure drop and head loss.',
  inputs: [
    input('reynolds', 'number', 'Reynolds number Re = ρ·v·D/μ', { min: 1, max: 1e9 }),
    input('relative_roughness', 'number', 'Relative roughness ε/D (0 for a smooth pipe)', { default: 0, min: 0, max: 0.1 }),
    input('length', 'number', 'Pipe length, for the pressure drop', { unit: 'm', required: false, min: 0, max: 1e7 }),
    input('diameter', 'number', 'Pipe inner diameter, for the pressure drop', { unit: 'm', required: false, min: 1e-6, max: 100 }),
    input('velocity', 'number', 'Mean flow velocity, for the pressure drop', { unit: 'm/s', required: false, min: 0, max: 1000 }),
    input('density', 'number', 'Fluid density, for the pressure drop', { unit: 'kg/m^3', default: 998.2, min: 1e-3, max: 25_000 }),
  ],
  options: [TOLERANCE(1e-15, 1e-16), MAX_ITERATIONS(50, 1000)],
  example: { reynolds: 1e5, relative_roughness: 1e-4, length: 100, diameter: 0.1, velocity: 1 },
  async run(a, o) {
    const Re = a.num('reynolds'),
      eps = a.num('relative_roughness');
    let f: number,
      iterations = 0,
      residual = 0;
    let regime: 'laminar' | 'transitional' | 'turbulent';
    if (Re < 2300) {
      regime = 'laminar';
      f = 64 / Re;
    } else {
      regime = Re < 4000 ? 'transitional' : 'turbulent';
      const haaland = -1.8 * Math.log10((eps / 3.7) ** 1.11 + 6.9 / Re);
      let x = haaland > 0 ? haaland : 8;
      const tol = o.num('tolerance'),
        maxIt = o.int('max_iterations');
      const g = (v: number) => v + 2 * Math.log10(eps / 3.7 + (2.51 * v) / Re);
      for (; iterations < maxIt; iterations++) {
        const inner = eps / 3.7 + (2.51 * x) / Re;
        const dx = -g(x) / (1 + ((2 / Math.LN10) * (2.51 / Re)) / inner);
        x += dx;
        if (Math.abs(dx) <= tol * Math.abs(x)) break;
      }
      if (iterations >= maxIt || !(x > 0)) unprocessable(`The Colebrook iteration did not converge in ${maxIt} iterations`);
      iterations++;
      residual = Math.abs(g(x));
      f = 1 / (x * x);
    }
    let pressureDrop: number | null = null,
      headLoss: number | null = null;
    if (a.has('length') && a.has('diameter') && a.has('velocity')) {
      const v = a.num('velocity');
      pressureDrop = (f * a.num('length') * a.num('density') * v * v) / (2 * a.num('diameter'));
      headLoss = pressureDrop / (a.num('density') * 9.80665);
    }
    return {
      result: { friction_factor: f, regime, fanning_friction_factor: f / 4, pressure_drop_pa: pressureDrop, head_loss_m: headLoss, residual },
      converged: true,
      iterations,
      error_estimate: residual,
    };
  },
};

export const blasius: SolverDef = {
  id: 'blasius-boundary-layer',
  name: 'Laminar flat-plate boundary layer (Blasius)',
  domain: 'fluids',
  method: "Shooting on f''(0) with the Illinois method, Dormand-Prince integration of f''' + ½·f·f'' = 0",
  operator_chain: ['KO42', 'FL30', 'FL32'],
  unit: 'm',
  version: '1.0.0',
  description:
    "Solves the Blasius boundary-value problem f''' + ½ f f'' = 0, f(0) = f'(0) = 0, f'(∞) = 1 by shooting, and scales it to a plate: boundary-layer thickness δ99, displacement and momentum thickness, wall shear stress and skin-friction coefficient at distance x from the leading edge. f''(0) ≈ 0.332057.",
  inputs: [
    input('velocity', 'number', 'Free-stream velocity U', { unit: 'm/s', min: 1e-6, max: 1000 }),
    input('kinematic_viscosity', 'number', 'Kinematic viscosity ν (air ≈ 1.5e-5)', { unit: 'm^2/s', default: 1.5e-5, min: 1e-9, max: 1 }),
    input('x', 'number', 'Distance from the leading edge', { unit: 'm', min: 1e-9, max: 1e4 }),
    input('density', 'number', 'Fluid density, for the wall shear stress', { unit: 'kg/m^3', default: 1.225, min: 1e-6, max: 25_000 }),
  ],
  options: [TOLERANCE(1e-11, 1e-13), input('eta_max', 'number', "Where the far-field condition f'(η) = 1 is imposed", { default: 12, min: 6, max: 30 })],
  example: { velocity: 10, x: 0.5 },
  async run(a, o, ctl) {
    const rtol = o.num('tolerance'),
      etaMax = o.num('eta_max');
    const f = (_e: number, y: Float64Array, dy: Float64Array) => {
      dy[0] = y[1]!;
      dy[1] = y[2]!;
      dy[2] = -0.5 * y[0]! * y[2]!;
      dy[3] = y[1]! * (1 - y[1]!);
    };
    const shoot = async (kappa: number) => (await dopri45(f, 0, Float64Array.from([0, 0, kappa, 0]), etaMax, { rtol, atol: 1e-14, maxSteps: 100_000 })).y;
    let lo = 0.1,
      hi = 1;
    let flo = (await shoot(lo))[1]! - 1,
      fhi = (await shoot(hi))[1]! - 1;
    let side = 0,
      iterations = 0,
      kappa = lo;
    for (; iterations < 200; iterations++) {
      kappa = (lo * fhi - hi * flo) / (fhi - flo);
      const fk = (await shoot(kappa))[1]! - 1;
      if (Math.abs(fk) <= 1e-13 || hi - lo <= 1e-15) break;
      if (fk > 0 === fhi > 0) {
        hi = kappa;
        fhi = fk;
        if (side === 1) flo /= 2;
        side = 1;
      } else {
        lo = kappa;
        flo = fk;
        if (side === -1) fhi /= 2;
        side = -1;
      }
      await ctl.checkpoint(iterations, 200, 'shooting');
    }
    const end = await shoot(kappa);
    const edge = await dopri45(f, 0, Float64Array.from([0, 0, kappa, 0]), etaMax, {
      rtol,
      atol: 1e-14,
      maxSteps: 100_000,
      event: { g: (_e, y) => y[1]! - 0.99, direction: 1 },
    });
    if (!edge.eventHit) unprocessable("f' never reached 0.99: increase eta_max");
    const U = a.num('velocity'),
      nu = a.num('kinematic_viscosity'),
      x = a.num('x');
    const scale = Math.sqrt((nu * x) / U);
    const Rex = (U * x) / nu;
    return {
      result: {
        f_wall_curvature: kappa,
        eta_99: edge.t,
        reynolds_x: Rex,
        laminar: Rex < 5e5,
        thickness_99: edge.t * scale,
        displacement_thickness: (etaMax - end[0]!) * scale,
        momentum_thickness: end[3]! * scale,
        wall_shear_stress: a.num('density') * nu * U * kappa * Math.sqrt(U / (nu * x)),
        skin_friction_coefficient: (2 * kappa) / Math.sqrt(Rex),
      },
      converged: true,
      iterations,
      error_estimate: Math.abs(end[1]! - 1),
    };
  },
};
