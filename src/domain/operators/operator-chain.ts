import { errors } from '../../errors.js';
import type { OperatorResult } from './operator.types.js';
import type { OperatorsService } from './operators.service.js';
import { SUBSTRATE_ID } from './registry-constants.js';
import type { ClockPoint } from './substrate.js';

export const MAX_CHAIN = 3;

export interface ChainOutcome {
  /** The chain as applied, KO42 first. */
  chain: string[];
  /** One result per operator of `chain`. */
  results: OperatorResult[];
  /** The last operator's value and unit. */
  value: number;
  unit: string;
  /** Largest relative disagreement of the unit cross-checks, at least one ulp. */
  precision: number;
}

/**
 * Applies KO42, then the listed operators in order. Inputs are looked up per operator as
 * `<ID>.<name>` first (an explicit per-operator value), then the output of an earlier operator of the
 * same name (converted to the input's unit when the dimensions agree), then `<name>`. So
 * `["NM19", "NM23"]` with `{ m, a, v }` feeds both operators the same `m`, and an operator needing `F`
 * after NM19 receives NM19's force. Inputs that no operator uses are refused, to catch misspelt names.
 */
export async function evaluateChain(
  operators: OperatorsService,
  requested: readonly string[],
  inputs: Readonly<Record<string, number>>,
  at: ClockPoint,
): Promise<ChainOutcome> {
  const ids = requested.map((id) => id.toUpperCase()).filter((id) => id !== SUBSTRATE_ID);
  if (ids.length > MAX_CHAIN) {
    throw errors.validation(`at most ${MAX_CHAIN} operators beyond the mandatory KO42 (got ${ids.length}: ${ids.join(', ')})`, {
      operators: requested,
    });
  }
  if (ids.length === 0) {
    // KO42 alone depends only on the instant, so its receipt could not be re-run later.
    throw errors.validation('list at least one operator besides KO42 (R(t) alone is GET /api/pulse)', { operators: requested });
  }
  const repeated = ids.find((id, i) => ids.indexOf(id) !== i);
  if (repeated) throw errors.validation(`Operator ${repeated} is listed twice; list each operator once`, { operator: repeated });
  const defs = ids.map((id) => {
    const op = operators.get(id);
    if (!op) throw errors.notFound(`No operator "${id}"; search them with GET /api/operators?q=...`, { id });
    return op;
  });

  const engine = await operators.engine();
  const used = new Set<string>();
  const produced = new Map<string, { value: number; unit: string; from: string }>();
  const results: OperatorResult[] = [await operators.evaluate(SUBSTRATE_ID, {}, { at })];
  for (const op of defs) {
    const scope: Record<string, number> = {};
    for (const input of op.inputs) {
      const qualified = `${op.id}.${input.name}`;
      const earlier = produced.get(input.name);
      if (inputs[qualified] !== undefined) {
        scope[input.name] = inputs[qualified]!;
        used.add(qualified);
      } else if (earlier && engine.sameDimension(earlier.unit, input.unit)) {
        scope[input.name] = earlier.unit === input.unit ? earlier.value : engine.fromSi(engine.toSi(earlier.value, earlier.unit), input.unit);
      } else if (inputs[input.name] !== undefined) {
        scope[input.name] = inputs[input.name]!;
        used.add(input.name);
      }
    }
    const result = await operators.evaluate(op.id, scope);
    results.push(result);
    produced.set(op.output.name, { value: result.value, unit: result.unit, from: op.id });
  }

  const unused = Object.keys(inputs).filter((k) => !used.has(k));
  if (unused.length > 0) {
    const takes = defs.map((op) => `${op.id} takes ${op.inputs.map((i) => i.name).join(', ')}`).join('; ');
    throw errors.validation(`Input ${unused.map((k) => `"${k}"`).join(', ')} is used by no operator of the chain (${takes})`, {
      unused,
    });
  }

  const last = results[results.length - 1]!;
  const worst = Math.max(0, ...results.map((r) => r.cross_check ?? 0));
  return { chain: [SUBSTRATE_ID, ...ids], results, value: last.value, unit: last.unit, precision: Math.max(worst, Number.EPSILON) };
}
