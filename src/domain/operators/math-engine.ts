import type { EvalFunction, MathJsInstance, Unit } from 'mathjs';
import type { OperatorDef } from './operator.types.js';
import { REGISTRY_CONSTANTS } from './registry-constants.js';
import { applyExactUnits } from './exact-units.js';

/**
 * Evaluates operator expressions with mathjs. mathjs takes about half a second to import, so it is
 * loaded on first use (the stdio server must answer `initialize` long before that), and each
 * expression is compiled the first time its operator runs.
 */
export interface MathEngine {
  readonly math: MathJsInstance;
  /** Compiles (once) and returns the evaluators of an operator. Throws when the expression does not parse. */
  compile(op: OperatorDef): CompiledOperator;
  /** `x` in `unit` expressed in SI (affine, so degC and degF convert correctly). */
  toSi(x: number, unit: string): number;
  /** The inverse of `toSi`. */
  fromSi(si: number, unit: string): number;
  /** Whether two units measure the same dimension (`""` matches only `""` or a dimensionless unit). */
  sameDimension(a: string, b: string): boolean;
}

export interface CompiledOperator {
  /** Evaluates on plain SI numbers; `values` are in the declared input units, the result in the output unit. */
  numeric(values: readonly number[]): unknown;
  /** Evaluates with mathjs units and returns the raw mathjs result (a Unit, a number, or something else). */
  withUnits(values: readonly number[]): unknown;
  /** Converts a `withUnits` result to a number in the output unit; undefined when its dimension is wrong. */
  unitResultToOutput(result: unknown): number | undefined;
}

let loading: Promise<MathEngine> | undefined;

/** The shared engine; the first call imports mathjs. Its units carry exact SI values (`exact-units.ts`). */
export function loadMathEngine(): Promise<MathEngine> {
  return (loading ??= import('mathjs').then((m) => {
    const math = m.create(m.all!);
    applyExactUnits(math);
    return createMathEngine(math);
  }));
}

interface Affine {
  offset: number;
  scale: number;
}

function createMathEngine(math: MathJsInstance): MathEngine {
  const numericConstants: Record<string, number> = {};
  const unitConstants: Record<string, number | Unit> = {};
  for (const [k, v] of Object.entries(REGISTRY_CONSTANTS)) {
    if (typeof v === 'number') {
      numericConstants[k] = v;
      unitConstants[k] = v;
    } else {
      const u = math.unit(v);
      numericConstants[k] = u.toSI().toNumber();
      unitConstants[k] = u;
    }
  }

  const affines = new Map<string, Affine>();
  const affine = (unit: string): Affine => {
    let found = affines.get(unit);
    if (!found) {
      const zero = unit ? math.unit(0, unit).toSI().toNumber() : 0;
      const one = unit ? math.unit(1, unit).toSI().toNumber() : 1;
      found = { offset: zero, scale: one - zero };
      affines.set(unit, found);
    }
    return found;
  };
  const toSi = (x: number, unit: string) => {
    const a = affine(unit);
    return a.offset === 0 ? x * a.scale : a.offset + x * a.scale;
  };
  const fromSi = (si: number, unit: string) => {
    const a = affine(unit);
    return a.offset === 0 ? si / a.scale : (si - a.offset) / a.scale;
  };
  const dimensionless = (unit: string) => unit === '' || math.unit(1, unit).equalBase(math.unit(1, 'm/m'));
  const sameDimension = (a: string, b: string) => {
    if (a === b) return true;
    if (a === '' || b === '') return dimensionless(a) && dimensionless(b);
    return math.unit(1, a).equalBase(math.unit(1, b));
  };

  const compiled = new Map<string, CompiledOperator>();
  const compile = (op: OperatorDef): CompiledOperator => {
    const cached = compiled.get(op.id);
    if (cached) return cached;
    const code: EvalFunction = math.compile(op.expression);
    const names = op.inputs.map((i) => i.name);
    const units = op.inputs.map((i) => i.unit);
    const out = op.output.unit;
    const result: CompiledOperator = {
      numeric(values) {
        const scope: Record<string, unknown> = { ...numericConstants };
        for (let i = 0; i < names.length; i++) scope[names[i]!] = toSi(values[i]!, units[i]!);
        const v = code.evaluate(scope) as unknown;
        if (typeof v === 'number') return out ? fromSi(v, out) : v;
        if (math.isUnit(v)) return out ? (v as Unit).toNumber(out) : (v as Unit).toSI().toNumber();
        return v;
      },
      withUnits(values) {
        const scope: Record<string, unknown> = { ...unitConstants };
        for (let i = 0; i < names.length; i++) scope[names[i]!] = units[i] ? math.unit(values[i]!, units[i]!) : values[i]!;
        return code.evaluate(scope) as unknown;
      },
      unitResultToOutput(v) {
        if (typeof v === 'number') return out === '' ? v : undefined;
        if (!math.isUnit(v)) return undefined;
        const u = v as Unit;
        if (out === '') return u.equalBase(math.unit(1, 'm/m')) ? u.toSI().toNumber() : undefined;
        return u.equalBase(math.unit(1, out)) ? u.toNumber(out) : undefined;
      },
    };
    compiled.set(op.id, result);
    return result;
  };

  return { math, compile, toSi, fromSi, sameDimension };
}
