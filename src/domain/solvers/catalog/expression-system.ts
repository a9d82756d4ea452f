import { checkName } from '../inputs.js';
import { compileExpression, ExpressionError, type Compiled } from '../numeric/expr.js';
import type { Rhs } from '../numeric/ode.js';
import { input, invalid, unprocessable, type Args, type InputSpec } from '../solver-def.js';

/** Inputs shared by the solvers that integrate a user-written system y' = f(t, y). */
export const SYSTEM_INPUTS: InputSpec[] = [
  input('variables', 'list', 'Names of the state variables, e.g. ["x", "v"]', { min_items: 1, max_items: 20 }),
  input(
    'equations',
    'list',
    'Right-hand side of each variable\'s derivative, as expressions in t, the variables and the parameters (functions: sin, cos, exp, log, sqrt, pow, ...), e.g. ["v", "-k*x"]',
    { min_items: 1, max_items: 20 },
  ),
  input('initial', 'vector', "Value of each variable at t0, in the variables' own units", { min_items: 1, max_items: 20 }),
  input('t0', 'number', 'Start time', { unit: 's', default: 0, min: -1e12, max: 1e12 }),
  input('t_end', 'number', 'End time; must differ from t0', { unit: 's', min: -1e12, max: 1e12 }),
  input('parameters', 'object', 'Named constants the equations use, e.g. {"k": 4}', { default: {} }),
  input('samples', 'integer', 'Number of equally spaced output times, t0 and t_end included', { default: 11, min: 2, max: 1001 }),
];

export interface ExpressionSystem {
  names: string[];
  f: Rhs;
  y0: Float64Array;
  t0: number;
  tEnd: number;
  /** Output times after t0, ending exactly at t_end. */
  outputs: number[];
}

/** Compiles the `variables` / `equations` / `parameters` inputs into a right-hand side. */
export function expressionSystem(a: Args): ExpressionSystem {
  const names = a.list<unknown>('variables').map((n, i) => checkName(`variables[${i}]`, n));
  const equations = a.list<unknown>('equations');
  const initial = a.vec('initial');
  if (equations.length !== names.length)
    invalid('equations', `there are ${names.length} variables but ${equations.length} equations; give one equation per variable`);
  if (initial.length !== names.length) invalid('initial', `there are ${names.length} variables but ${initial.length} initial values`);
  if (new Set(names).size !== names.length) invalid('variables', 'variable names must be distinct');
  const params = a.obj('parameters');
  const paramNames = Object.keys(params).sort();
  for (const p of paramNames) if (names.includes(p) || p === 't') invalid('parameters', `"${p}" is also a variable name (or t)`);
  if (names.includes('t')) invalid('variables', '"t" is the independent variable; name the states otherwise');
  const scope = ['t', ...names, ...paramNames];
  const compiled: Compiled[] = equations.map((eq, i) => {
    if (typeof eq !== 'string') invalid(`equations[${i}]`, 'each equation must be a string expression');
    try {
      return compileExpression(eq as string, scope);
    } catch (err) {
      if (err instanceof ExpressionError) invalid(`equations[${i}]`, err.message);
      throw err;
    }
  });
  const vars = new Float64Array(scope.length);
  paramNames.forEach((p, i) => (vars[1 + names.length + i] = params[p]!));
  const n = names.length;
  const f: Rhs = (t, y, dy) => {
    vars[0] = t;
    for (let i = 0; i < n; i++) vars[1 + i] = y[i]!;
    for (let i = 0; i < n; i++) dy[i] = compiled[i]!(vars);
  };
  const t0 = a.num('t0');
  const tEnd = a.num('t_end');
  if (tEnd === t0) unprocessable('t_end must differ from t0');
  const samples = a.int('samples');
  const outputs = Array.from({ length: samples - 1 }, (_, i) => (i === samples - 2 ? tEnd : t0 + ((i + 1) * (tEnd - t0)) / (samples - 1)));
  const probe = new Float64Array(n);
  f(t0, Float64Array.from(initial), probe);
  probe.forEach((v, i) => {
    if (!Number.isFinite(v)) unprocessable(`equations[${i}] is not finite at t0 with the initial values (got ${v})`, { equation: i });
  });
  return { names, f, y0: Float64Array.from(initial), t0, tEnd, outputs };
}

/** The `{ final, samples }` result of an integrated system, keyed by variable name. */
export function trajectory(names: string[], times: number[], states: Float64Array[]) {
  const samples: Record<string, number[]> = { t: times.slice() };
  names.forEach((n, i) => (samples[n] = states.map((s) => s[i]!)));
  const last = states[states.length - 1]!;
  const final: Record<string, number> = {};
  names.forEach((n, i) => (final[n] = last[i]!));
  return { t_end: times[times.length - 1]!, final, samples };
}
