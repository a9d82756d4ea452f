import { checkName } from '../inputs.js';
import { compileExpression, ExpressionError, type Compiled } from '../numeric/expr.js';
import { brent, newtonSystem } from '../numeric/roots.js';
import { input, invalid, MAX_ITERATIONS, TOLERANCE, unprocessable, type Args, type SolverDef } from '../solver-def.js';

/** Compiles `src` over `names` plus the sorted parameter names, refusing a bad expression with 400. */
export function compileInput(inputName: string, src: string, names: string[], params: Record<string, number>): { fn: Compiled; vars: Float64Array } {
  const paramNames = Object.keys(params).sort();
  for (const p of paramNames) if (names.includes(p)) invalid('parameters', `"${p}" is also a variable name`);
  const scope = [...names, ...paramNames];
  let fn: Compiled;
  try {
    fn = compileExpression(src, scope);
  } catch (err) {
    if (err instanceof ExpressionError) invalid(inputName, err.message);
    throw err;
  }
  const vars = new Float64Array(scope.length);
  paramNames.forEach((p, i) => (vars[names.length + i] = params[p]!));
  return { fn, vars };
}

/** A function of one variable from the `f`, `variable` and `parameters` inputs. */
export function scalarFunction(a: Args, inputName = 'f'): (x: number) => number {
  const variable = checkName('variable', a.str('variable'));
  const { fn, vars } = compileInput(inputName, a.str(inputName), [variable], a.obj('parameters'));
  return (x) => {
    vars[0] = x;
    return fn(vars);
  };
}

export const rootBrent: SolverDef = {
  id: 'root-brent',
  name: 'Root of a function, Brent',
  domain: 'root_finding',
  method: "Brent's method: inverse quadratic interpolation and secant steps safeguarded by bisection",
  operator_chain: ['KO42', 'CMP21'],
  unit: '',
  version: '1.0.0',
  description:
    'Finds x in [a, b] with f(x) = 0 for an expression f where f(a) and f(b) have opposite signs. Guaranteed to converge like bisection, usually superlinearly. Refused when the bracket does not change sign.',
  inputs: [
    input('f', 'string', 'The function, as an expression in the variable and parameters, e.g. "x^3 - 2*x - 5"'),
    input('variable', 'string', 'Name of the unknown', { default: 'x' }),
    input('a', 'number', 'Left end of the bracket', { min: -1e300, max: 1e300 }),
    input('b', 'number', 'Right end of the bracket', { min: -1e300, max: 1e300 }),
    input('parameters', 'object', 'Named constants used by f', { default: {} }),
  ],
  options: [TOLERANCE(1e-15, 1e-16), MAX_ITERATIONS(200, 10_000)],
  example: { f: 'x^3 - 2*x - 5', a: 2, b: 3 },
  async run(a, o) {
    const f = scalarFunction(a);
    const lo = a.num('a'),
      hi = a.num('b');
    if (lo === hi) unprocessable('the bracket is empty: a equals b');
    const xtol = o.num('tolerance') * Math.max(Math.abs(lo), Math.abs(hi));
    const r = brent(f, lo, hi, xtol, o.int('max_iterations'));
    return { result: { root: r.root, f_root: r.value, bracket_width: r.bracket }, converged: true, iterations: r.iterations, error_estimate: r.bracket };
  },
};

export const rootNewtonSystem: SolverDef = {
  id: 'root-newton-system',
  name: 'Nonlinear system, Newton',
  domain: 'root_finding',
  method: "Newton's method with finite-difference Jacobian, LU solve and Armijo backtracking line search",
  operator_chain: ['KO42'],
  unit: '',
  version: '1.0.0',
  description:
    'Solves F(x) = 0 for n equations in n unknowns written as expressions, from an initial guess. Quadratic convergence near a simple root; the line search widens the basin. Refused with the reason when the Jacobian is singular or the iteration stalls.',
  inputs: [
    input('variables', 'list', 'Names of the unknowns, e.g. ["x", "y"]', { min_items: 1, max_items: 50 }),
    input('equations', 'list', 'Expressions that must equal zero, one per unknown, e.g. ["x^2 + y^2 - 4", "exp(x) + y - 1"]', { min_items: 1, max_items: 50 }),
    input('initial', 'vector', 'Initial guess for each unknown', { min_items: 1, max_items: 50 }),
    input('parameters', 'object', 'Named constants used by the equations', { default: {} }),
  ],
  options: [TOLERANCE(1e-12, 1e-15), MAX_ITERATIONS(100, 1000)],
  example: { variables: ['x', 'y'], equations: ['x^2 + y^2 - 4', 'exp(x) + y - 1'], initial: [-2, 1] },
  async run(a, o) {
    const names = a.list<unknown>('variables').map((v, i) => checkName(`variables[${i}]`, v));
    const equations = a.list<unknown>('equations');
    const x0 = a.vec('initial');
    if (equations.length !== names.length) invalid('equations', `give one equation per unknown (${names.length} unknowns, ${equations.length} equations)`);
    if (x0.length !== names.length) invalid('initial', `give one initial value per unknown (${names.length})`);
    if (new Set(names).size !== names.length) invalid('variables', 'names must be distinct');
    const compiled = equations.map((eq, i) => {
      if (typeof eq !== 'string') invalid(`equations[${i}]`, 'each equation must be a string expression');
      return compileInput(`equations[${i}]`, eq as string, names, a.obj('parameters'));
    });
    const n = names.length;
    const F = (x: Float64Array, out: Float64Array) => {
      for (let i = 0; i < n; i++) {
        const c = compiled[i]!;
        c.vars.set(x.subarray(0, n), 0);
        out[i] = c.fn(c.vars);
      }
    };
    const r = newtonSystem(F, Float64Array.from(x0), o.num('tolerance'), o.int('max_iterations'));
    const solution: Record<string, number> = {};
    names.forEach((name, i) => (solution[name] = r.x[i]!));
    return { result: { solution, x: Array.from(r.x), residual_norm: r.residual }, converged: true, iterations: r.iterations, error_estimate: r.residual };
  },
};
