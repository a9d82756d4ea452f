import { dopri45, rk4 } from '../numeric/ode.js';
import { rodas4 } from '../numeric/ode-stiff.js';
import { input, MAX_ITERATIONS, TOLERANCE, unprocessable, type SolverDef } from '../solver-def.js';
import { expressionSystem, SYSTEM_INPUTS, trajectory } from './expression-system.js';

const ABS_TOLERANCE = input('abs_tolerance', 'number', 'Absolute error tolerance per component, for components near zero', {
  default: 1e-10,
  min: 1e-300,
  max: 1,
});

export const odeRk4: SolverDef = {
  id: 'ode-rk4',
  name: 'ODE system, classical Runge-Kutta',
  domain: 'ode',
  method: 'Classical 4th-order Runge-Kutta, fixed step',
  operator_chain: ['KO42', 'NM30', 'NM19'],
  unit: '',
  version: '1.0.0',
  description:
    "Integrates y' = f(t, y) for a system you write as expressions, with a fixed number of equal RK4 steps (global error O(h^4)). Use it when you want a predictable cost and step; use ode-dopri45 when you want a tolerance instead.",
  inputs: [...SYSTEM_INPUTS, input('steps', 'integer', 'Total number of equal steps; a multiple of samples - 1', { default: 1000, min: 1, max: 2_000_000 })],
  options: [],
  example: {
    variables: ['x', 'v'],
    equations: ['v', '-omega^2 * x'],
    initial: [1, 0],
    t0: 0,
    t_end: 6.283185307179586,
    parameters: { omega: 1 },
    steps: 1000,
    samples: 5,
  },
  async run(a, _o, ctl) {
    const sys = expressionSystem(a);
    const steps = a.int('steps');
    const intervals = sys.outputs.length;
    if (steps % intervals !== 0) {
      unprocessable(
        `steps (${steps}) must be a multiple of samples - 1 (${intervals}) so every sample falls on a step; try ${Math.max(1, Math.round(steps / intervals)) * intervals}`,
      );
    }
    const sol = await rk4(sys.f, sys.t0, sys.y0, sys.tEnd, steps, steps / intervals, ctl);
    return { result: { ...trajectory(sys.names, sol.times, sol.states), steps }, converged: true, iterations: steps, error_estimate: null };
  },
};

export const odeDopri45: SolverDef = {
  id: 'ode-dopri45',
  name: 'ODE system, adaptive Dormand-Prince',
  domain: 'ode',
  method: 'Dormand-Prince 5(4) embedded Runge-Kutta with PI step-size control',
  operator_chain: ['KO42', 'NM28', 'NM29'],
  unit: '',
  version: '1.0.0',
  description:
    "Integrates y' = f(t, y) for a system you write as expressions to a relative tolerance, choosing the step size from the embedded 4th-order error estimate and landing exactly on every sample time. For stiff systems (widely separated time scales) use ode-stiff-rosenbrock.",
  inputs: SYSTEM_INPUTS,
  options: [TOLERANCE(1e-8), ABS_TOLERANCE, MAX_ITERATIONS(200_000, 5_000_000)],
  example: { variables: ['x', 'y'], equations: ['y', 'mu * (1 - x^2) * y - x'], initial: [2, 0], t0: 0, t_end: 20, parameters: { mu: 1 }, samples: 11 },
  run: adaptiveRun(dopri45),
};

export const odeStiff: SolverDef = {
  id: 'ode-stiff-rosenbrock',
  name: 'Stiff ODE system, Rosenbrock',
  domain: 'ode',
  method: 'RODAS4 (Hairer & Wanner): 6-stage Rosenbrock 4(3), L-stable and stiffly accurate, finite-difference Jacobian',
  operator_chain: ['KO42', 'KIN1', 'KIN3'],
  unit: '',
  version: '2.0.0',
  description:
    "Integrates stiff systems (chemical kinetics such as Robertson's problem, Van der Pol with large mu) where explicit methods need absurdly small steps. Six linear solves with one W = I/(h·γ) - J per step; the Jacobian comes from forward differences of your expressions. The order-4 solution is kept while the order-3 one is error-controlled, so the global error stays within a small factor of the tolerance (y' = -y over ten time constants: 1.0-1.2 × the tolerance from 1e-6 to 1e-10).",
  inputs: SYSTEM_INPUTS,
  options: [TOLERANCE(1e-6, 1e-10), ABS_TOLERANCE, MAX_ITERATIONS(100_000, 2_000_000)],
  example: {
    variables: ['y1', 'y2', 'y3'],
    equations: ['-0.04*y1 + 1e4*y2*y3', '0.04*y1 - 1e4*y2*y3 - 3e7*y2^2', '3e7*y2^2'],
    initial: [1, 0, 0],
    t0: 0,
    t_end: 40,
    samples: 5,
  },
  run: adaptiveRun(rodas4),
};

/** The run of an adaptive integrator over an expression system: the two adaptive solvers differ only in it. */
function adaptiveRun(integrate: typeof dopri45 | typeof rodas4): SolverDef['run'] {
  return async (a, o, ctl) => {
    const sys = expressionSystem(a);
    const sol = await integrate(sys.f, sys.t0, sys.y0, sys.tEnd, {
      rtol: o.num('tolerance'),
      atol: o.num('abs_tolerance'),
      maxSteps: o.int('max_iterations'),
      outputs: sys.outputs,
      ctl,
    });
    return {
      result: { ...trajectory(sys.names, sol.times, sol.states), steps: sol.steps, rejected_steps: sol.rejected, evaluations: sol.evaluations },
      converged: true,
      iterations: sol.steps,
      error_estimate: sol.maxError * o.num('tolerance'),
    };
  };
}
