import { luFactor, luSolveInPlace } from '../numeric/linalg.js';
import { dopri45 } from '../numeric/ode.js';
import { input, invalid, MAX_ITERATIONS, TOLERANCE, unprocessable, type SolverDef } from '../solver-def.js';

export const rlcTransient: SolverDef = {
  id: 'rlc-transient',
  name: 'Series RLC transient',
  domain: 'circuits',
  method: 'Dormand-Prince 5(4) on the state (capacitor voltage, inductor current); closed form cross-check for DC sources',
  operator_chain: ['KO42', 'CIR9', 'CIR10', 'CTL8'],
  unit: 'V',
  version: '1.0.0',
  description:
    'Simulates a series resistor-inductor-capacitor circuit driven by a DC step, a sine source or nothing (free response) from given initial capacitor voltage and current. Returns sampled capacitor voltage and current, the damping regime, natural frequency and damping ratio, and for DC sources the deviation from the closed-form solution.',
  inputs: [
    input('resistance', 'number', 'Series resistance R', { unit: 'ohm', min: 0, max: 1e9 }),
    input('inductance', 'number', 'Inductance L', { unit: 'H', min: 1e-15, max: 1e6 }),
    input('capacitance', 'number', 'Capacitance C', { unit: 'F', min: 1e-18, max: 1e6 }),
    input('source', 'string', 'Source waveform applied at t = 0', { default: 'step', enum: ['step', 'sine', 'none'] }),
    input('amplitude', 'number', 'Step voltage, or sine amplitude', { unit: 'V', default: 1, min: -1e7, max: 1e7 }),
    input('frequency', 'number', 'Sine frequency', { unit: 'Hz', default: 50, min: 0, max: 1e12 }),
    input('v0', 'number', 'Initial capacitor voltage', { unit: 'V', default: 0, min: -1e7, max: 1e7 }),
    input('i0', 'number', 'Initial current', { unit: 'A', default: 0, min: -1e6, max: 1e6 }),
    input('t_end', 'number', 'Simulated duration', { unit: 's', min: 1e-15, max: 1e6 }),
    input('samples', 'integer', 'Number of equally spaced output times, 0 and t_end included', { default: 11, min: 2, max: 1001 }),
  ],
  options: [TOLERANCE(1e-10, 1e-13), MAX_ITERATIONS(500_000, 5_000_000)],
  example: { resistance: 10, inductance: 0.1, capacitance: 1e-4, source: 'step', amplitude: 12, t_end: 0.1, samples: 11 },
  async run(a, o, ctl) {
    const R = a.num('resistance'),
      L = a.num('inductance'),
      Cap = a.num('capacitance');
    const V = a.num('amplitude'),
      w = 2 * Math.PI * a.num('frequency'),
      kind = a.str('source');
    const vs = kind === 'step' ? () => V : kind === 'sine' ? (t: number) => V * Math.sin(w * t) : () => 0;
    const f = (t: number, y: Float64Array, dy: Float64Array) => {
      dy[0] = y[1]! / Cap;
      dy[1] = (vs(t) - R * y[1]! - y[0]!) / L;
    };
    const tEnd = a.num('t_end'),
      samples = a.int('samples');
    const outputs = Array.from({ length: samples - 1 }, (_, i) => (i === samples - 2 ? tEnd : ((i + 1) * tEnd) / (samples - 1)));
    const v0 = a.num('v0'),
      i0 = a.num('i0');
    const scale = Math.max(Math.abs(V), Math.abs(v0), Math.abs(i0) * Math.sqrt(L / Cap), 1e-12);
    const sol = await dopri45(f, 0, Float64Array.from([v0, i0]), tEnd, {
      rtol: o.num('tolerance'),
      atol: 1e-12 * scale,
      maxSteps: o.int('max_iterations'),
      outputs,
      ctl,
    });
    const alpha = R / (2 * L),
      w0 = 1 / Math.sqrt(L * Cap),
      zeta = alpha / w0;
    const regime = Math.abs(zeta - 1) < 1e-12 ? 'critically_damped' : zeta < 1 ? 'underdamped' : 'overdamped';
    let deviation: number | null = null;
    if (kind !== 'sine') {
      const target = kind === 'step' ? V : 0;
      deviation = 0;
      sol.times.forEach((t, k) => {
        const exact = closedForm(t, target, v0, i0, alpha, w0, Cap);
        deviation = Math.max(deviation!, Math.abs(exact - sol.states[k]![0]!) / scale);
      });
    }
    return {
      result: {
        t: sol.times,
        v_c: sol.states.map((s) => s[0]!),
        current: sol.states.map((s) => s[1]!),
        regime,
        natural_frequency_hz: w0 / (2 * Math.PI),
        damping_ratio: zeta,
        damped_frequency_hz: zeta < 1 ? (w0 * Math.sqrt(1 - zeta * zeta)) / (2 * Math.PI) : null,
        closed_form_max_deviation: deviation,
      },
      converged: true,
      iterations: sol.steps,
      error_estimate: deviation,
    };
  },
};

/** Capacitor voltage of a series RLC with a DC source V from v0, i0. */
function closedForm(t: number, V: number, v0: number, i0: number, alpha: number, w0: number, C: number): number {
  const A = v0 - V,
    slope = i0 / C;
  const disc = alpha * alpha - w0 * w0;
  if (Math.abs(disc) <= 1e-12 * w0 * w0) return V + (A + (slope + alpha * A) * t) * Math.exp(-alpha * t);
  if (disc < 0) {
    const wd = Math.sqrt(-disc);
    return V + Math.exp(-alpha * t) * (A * Math.cos(wd * t) + ((slope + alpha * A) / wd) * Math.sin(wd * t));
  }
  const root = Math.sqrt(disc),
    s1 = -alpha + root,
    s2 = -alpha - root;
  const K1 = (slope - s2 * A) / (s1 - s2),
    K2 = A - K1;
  return V + K1 * Math.exp(s1 * t) + K2 * Math.exp(s2 * t);
}

interface Element {
  kind: 'resistor' | 'current_source' | 'voltage_source';
  a: number;
  b: number;
  value: number;
}

function elementsOf(raw: unknown[]): Element[] {
  return raw.map((e, i) => {
    const el = e as Partial<Element> | null;
    const where = `elements[${i}]`;
    if (!el || typeof el !== 'object' || Array.isArray(el)) invalid(where, 'must be an object { kind, a, b, value }');
    const keys = Object.keys(el).filter((k) => !['kind', 'a', 'b', 'value'].includes(k));
    if (keys.length > 0) invalid(where, `unknown field "${keys[0]}"; use kind, a, b and value`);
    if (el.kind !== 'resistor' && el.kind !== 'current_source' && el.kind !== 'voltage_source')
      invalid(`${where}.kind`, 'must be "resistor", "current_source" or "voltage_source"');
    for (const node of ['a', 'b'] as const) {
      if (typeof el[node] !== 'number' || !Number.isInteger(el[node]) || el[node]! < 0 || el[node]! > 200)
        invalid(`${where}.${node}`, 'must be a node number from 0 (ground) to 200');
    }
    if (typeof el.value !== 'number' || !Number.isFinite(el.value)) invalid(`${where}.value`, 'must be a finite number (ohm, A or V)');
    if (el.a === el.b) invalid(where, 'connects a node to itself');
    if (el.kind === 'resistor' && !(el.value! > 0)) unprocessable(`${where}: a resistance must be positive (got ${el.value} ohm)`, { element: i });
    return el as Element;
  });
}

export const nodalAnalysis: SolverDef = {
  id: 'nodal-analysis',
  name: 'DC circuit, modified nodal analysis',
  domain: 'circuits',
  method: 'Modified nodal analysis (Kirchhoff current law plus voltage-source constraints), LU with partial pivoting',
  operator_chain: ['KO42', 'CIR1', 'CIR4'],
  unit: 'V',
  version: '1.0.0',
  description:
    'Solves a DC network of resistors, independent current sources and independent voltage sources between numbered nodes (0 is ground): node voltages, the current through and power absorbed by every element, and the power balance. A current source drives `value` amperes from node a to node b through itself; a voltage source holds V(a) − V(b) = value.',
  inputs: [
    input('elements', 'list', 'Circuit elements: { "kind": "resistor" | "current_source" | "voltage_source", "a": node, "b": node, "value": ohm, A or V }', {
      min_items: 1,
      max_items: 400,
    }),
  ],
  options: [],
  example: {
    elements: [
      { kind: 'voltage_source', a: 1, b: 0, value: 10 },
      { kind: 'resistor', a: 1, b: 2, value: 1000 },
      { kind: 'resistor', a: 2, b: 0, value: 2000 },
      { kind: 'resistor', a: 2, b: 3, value: 500 },
      { kind: 'current_source', a: 0, b: 3, value: 0.002 },
      { kind: 'resistor', a: 3, b: 0, value: 1500 },
    ],
  },
  async run(a) {
    const els = elementsOf(a.list('elements'));
    const nodes = Math.max(...els.map((e) => Math.max(e.a, e.b)));
    const sources = els.filter((e) => e.kind === 'voltage_source');
    const size = nodes + sources.length;
    const M = new Float64Array(size * size),
      rhs = new Float64Array(size);
    const at = (r: number, c: number, v: number) => (M[r * size + c] = M[r * size + c]! + v);
    let vs = 0;
    const sourceRow = new Map<Element, number>();
    for (const e of els) {
      const ia = e.a - 1,
        ib = e.b - 1;
      if (e.kind === 'resistor') {
        const g = 1 / e.value;
        if (ia >= 0) at(ia, ia, g);
        if (ib >= 0) at(ib, ib, g);
        if (ia >= 0 && ib >= 0) {
          at(ia, ib, -g);
          at(ib, ia, -g);
        }
      } else if (e.kind === 'current_source') {
        if (ia >= 0) rhs[ia] = rhs[ia]! - e.value;
        if (ib >= 0) rhs[ib] = rhs[ib]! + e.value;
      } else {
        const k = nodes + vs++;
        sourceRow.set(e, k);
        if (ia >= 0) {
          at(ia, k, 1);
          at(k, ia, 1);
        }
        if (ib >= 0) {
          at(ib, k, -1);
          at(k, ib, -1);
        }
        rhs[k] = e.value;
      }
    }
    const piv = new Int32Array(size);
    if (!luFactor(M, size, piv))
      unprocessable(
        'The circuit equations are singular: a node floats (no DC path to ground) or voltage sources form a loop or a cut set with current sources',
      );
    luSolveInPlace(M, size, piv, rhs);
    const volts = [0, ...Array.from(rhs.subarray(0, nodes))];
    if (!volts.every(Number.isFinite)) unprocessable('The circuit equations are numerically singular');
    const elements = els.map((e) => {
      const voltage = volts[e.a]! - volts[e.b]!;
      const current = e.kind === 'resistor' ? voltage / e.value : e.kind === 'current_source' ? e.value : rhs[sourceRow.get(e)!]!;
      return { kind: e.kind, a: e.a, b: e.b, voltage, current, power_absorbed: voltage * current };
    });
    const balance = elements.reduce((s, e) => s + e.power_absorbed, 0);
    const scale = elements.reduce((s, e) => s + Math.abs(e.power_absorbed), 0) || 1;
    return { result: { node_voltages: volts, elements, power_balance: balance }, converged: true, iterations: null, error_estimate: Math.abs(balance) / scale };
  },
};
