import { CoreError, errors } from '../../errors.js';
import type { MathEngine } from '../operators/math-engine.js';
import { evaluateOperator } from '../operators/operator-eval.js';
import type { OperatorDef } from '../operators/operator.types.js';
import { checkExpression } from './expression-guard.js';

export interface ProposalIo {
  name: string;
  unit: string;
  description?: string | undefined;
}

export interface TestCaseInput {
  inputs: Record<string, number>;
  expected: number;
  tolerance: number;
}

export interface Verification {
  passed: boolean;
  max_relative_error: number;
  cases: Array<TestCaseInput & { actual: number | null; passed: boolean }>;
}

export interface OperatorDraft {
  operator_id: string;
  name: string;
  category: string;
  formula: string;
  expression: string;
  description: string;
  inputs: ProposalIo[];
  output: ProposalIo;
}

/** The registry operator a proposal becomes; the first test case gives each input its example value. */
export function operatorDefOf(draft: OperatorDraft, id: string, firstCase: TestCaseInput | undefined): OperatorDef {
  return {
    id,
    name: draft.name,
    description: draft.description,
    formula: draft.formula,
    expression: draft.expression,
    inputs: draft.inputs.map((i) => ({ name: i.name, unit: i.unit, description: i.description ?? '', example: firstCase?.inputs[i.name] ?? 1 })),
    output: { name: draft.output.name, unit: draft.output.unit, description: draft.output.description ?? '' },
    domain: [draft.category],
    tier: 'community',
    proof_required: false,
    category: draft.category,
  };
}

/**
 * Checks a proposal's shape (units known to mathjs, unique input names, an expression of plain
 * arithmetic over its inputs, test cases that give exactly the declared inputs) and evaluates every
 * test case with the registry's own evaluator. VALIDATION_FAILED for a malformed proposal; a case whose
 * result is off or cannot be computed is recorded as failed, not thrown. `evalId` keys the compiled
 * expression and must be unique to this proposal.
 */
export function verifyProposal(engine: MathEngine, draft: OperatorDraft, cases: TestCaseInput[], evalId: string): Verification {
  const names = draft.inputs.map((i) => i.name);
  if (new Set(names).size !== names.length) throw errors.validation('Input names must be unique');
  for (const io of [...draft.inputs, draft.output]) {
    if (io.unit === '') continue;
    try {
      engine.toSi(1, io.unit);
    } catch {
      throw errors.validation(`Unit "${io.unit}" of "${io.name}" is not a unit mathjs knows; use mathjs unit syntax such as "m/s^2" or "kJ/mol"`);
    }
  }
  let parsed;
  try {
    parsed = engine.math.parse(draft.expression);
  } catch (err) {
    throw errors.validation(`The expression does not parse: ${(err as Error).message}`);
  }
  checkExpression(parsed, names);
  cases.forEach((c, i) => {
    const given = Object.keys(c.inputs).sort().join(',');
    if (given !== [...names].sort().join(',')) {
      throw errors.validation(`test_cases[${i}] must give exactly the inputs ${names.join(', ')}; it gives ${given || 'none'}`);
    }
  });

  const op = operatorDefOf(draft, evalId, cases[0]);
  let maxError = 0;
  const evaluated = cases.map((c) => {
    let actual: number | null = null;
    try {
      actual = evaluateOperator(engine, op, c.inputs).value;
    } catch (err) {
      if (!(err instanceof CoreError)) throw err;
    }
    const error = actual === null ? Infinity : relativeError(actual, c.expected);
    if (Number.isFinite(error)) maxError = Math.max(maxError, error);
    return { ...c, actual, passed: error <= c.tolerance };
  });
  return { passed: evaluated.every((c) => c.passed), max_relative_error: maxError, cases: evaluated };
}

/** Relative error, or the absolute error when the expected value is 0. */
function relativeError(actual: number, expected: number): number {
  const diff = Math.abs(actual - expected);
  return expected === 0 ? diff : diff / Math.abs(expected);
}
