import { Environment, type ASTNode } from '@marcbachmann/cel-js';
import { errors } from '../../errors.js';
import { prepareAst, publicMessage, registerBudgetedFunctions } from './condition-budget.js';
import { withMeter, type MeterOptions } from './condition-meter.js';

/**
 * Transition conditions: CEL expressions over the input scope. `input.x` and a bare `x` both read
 * `x` from the input; integers and decimals mix freely in arithmetic (JSON numbers are all doubles,
 * CEL literals like `2` are ints, and plain CEL has no `double * int`). Every evaluation is metered by
 * the work it does and has a deadline (`condition-meter.ts`; the cost table is in `condition-budget.ts`),
 * and `matches` runs on RE2. A condition also sees
 * `secrets`, the definition's write-only values, which are never part of the recorded input.
 */
export type ConditionOutcome = { ok: true; value: boolean } | { ok: false; error: string; overBudget?: true };
type Evaluated = { ok: true; value: unknown } | { ok: false; error: string; overBudget?: true };

/** Limits of one evaluation other than the defaults (tests: a fake clock, a smaller budget). */
export type EvaluationLimits = MeterOptions;

const env = buildEnvironment();
const compiled = new Map<string, (scope: Record<string, unknown>) => unknown>();
const MAX_CACHED = 5000;

function buildEnvironment(): Environment {
  const e = new Environment({ unlistedVariablesAreDyn: true, homogeneousAggregateLiterals: false, limits: { maxDepth: 64, maxAstNodes: 4000 } });
  registerBudgetedFunctions(e);
  const ops: Record<string, (a: number, b: number) => number> = {
    '+': (a, b) => a + b,
    '-': (a, b) => a - b,
    '*': (a, b) => a * b,
    '/': (a, b) => a / b,
    '%': (a, b) => a % b,
  };
  for (const [op, fn] of Object.entries(ops)) {
    e.registerOperator(`double ${op} int`, (a: number, b: bigint) => fn(a, Number(b)));
    e.registerOperator(`int ${op} double`, (a: bigint, b: number) => fn(Number(a), b));
  }
  e.registerOperator('double % double', (a: number, b: number) => a % b);
  return e;
}

/** Parses an expression for a budgeted evaluation; `problem` is what its writer must change. */
function parse(expression: string): { parsed: ReturnType<Environment['parse']>; problem: string | undefined } {
  const parsed = env.parse(expression);
  return { parsed, problem: prepareAst(parsed.ast) };
}

/** The answer to a caller whose request ran a condition over its budget. */
export const overBudget = (message: string) => errors.unprocessable(message, { code: 'condition_over_budget' });

/** Why an expression does not parse or type-check, or undefined when it does. */
export function conditionProblem(expression: string): string | undefined {
  try {
    const { parsed, problem } = parse(expression);
    if (problem) return problem;
    const checked = parsed.check();
    if (!checked.valid) return firstLine(checked.error?.message ?? 'does not type-check');
    if (checked.type !== 'bool' && checked.type !== 'dyn') return `evaluates to ${checked.type}, not a boolean`;
    return undefined;
  } catch (err) {
    return firstLine((err as Error).message);
  }
}

/** Evaluates a condition; a missing key or a type mismatch is a failed outcome with a clear message. */
export function evaluateCondition(
  expression: string,
  input: Record<string, unknown>,
  secrets?: Record<string, unknown>,
  limits?: EvaluationLimits,
): ConditionOutcome {
  const out = evaluate(expression, input, 'condition', secrets ?? {}, limits);
  if (!out.ok) return out;
  if (typeof out.value !== 'boolean') return { ok: false, error: `condition evaluated to ${describe(out.value)}, not true or false` };
  return { ok: true, value: out.value };
}

/** Why a numeric expression (an `operator_inputs` value) does not parse or type-check, or undefined when it does. */
export function numberExpressionProblem(expression: string): string | undefined {
  try {
    const { parsed, problem } = parse(expression);
    if (problem) return problem;
    const checked = parsed.check();
    if (!checked.valid) return firstLine(checked.error?.message ?? 'does not type-check');
    if (!['int', 'uint', 'double', 'dyn'].includes(checked.type ?? 'dyn')) return `evaluates to ${checked.type}, not a number`;
    return undefined;
  } catch (err) {
    return firstLine((err as Error).message);
  }
}

/**
 * Evaluates a numeric expression over the same scope a condition sees (CEL integers become numbers).
 * Fails with a clear message on a missing key, an evaluation error, or a value that is not a finite number.
 */
export function evaluateNumber(
  expression: string,
  input: Record<string, unknown>,
): { ok: true; value: number } | { ok: false; error: string; overBudget?: true } {
  const out = evaluate(expression, input, 'expression');
  if (!out.ok) return out;
  const value = typeof out.value === 'bigint' ? Number(out.value) : out.value;
  if (typeof value !== 'number') return { ok: false, error: `"${expression}" evaluated to ${describe(value)}, not a number` };
  if (!Number.isFinite(value)) return { ok: false, error: `"${expression}" evaluated to ${value}, not a finite number` };
  return { ok: true, value };
}

function evaluate(expression: string, input: Record<string, unknown>, what: string, secrets?: Record<string, unknown>, limits?: EvaluationLimits): Evaluated {
  let run = compiled.get(expression);
  try {
    if (run === undefined) {
      const { parsed } = parse(expression);
      run = (scope) => parsed(scope);
      if (compiled.size >= MAX_CACHED) compiled.clear();
      compiled.set(expression, run);
    }
  } catch (err) {
    return { ok: false, error: explain(firstLine(publicMessage((err as Error).message)), what) };
  }
  // Bare names resolve in the input; `input` itself stays reachable unless the input has a key `input`.
  // `secrets` comes last: an input cannot stand in for the definition's own.
  const scope = secrets === undefined ? { ...input, input } : { ...input, input, secrets };
  const out = withMeter(() => run(scope), limits);
  if (out.exceeded) return { ok: false, error: `${what} is over budget: ${out.exceeded.message}`, overBudget: true };
  if (out.error !== undefined) return { ok: false, error: explain(firstLine(publicMessage((out.error as Error).message)), what) };
  return { ok: true, value: out.value };
}

/** Input names an expression reads (`input.x` and bare `x`, not `secrets`), for matching template parameters. */
export function conditionNames(expression: string): string[] {
  const names = new Set<string>();
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (!node || typeof node !== 'object' || !('op' in node)) return;
    const n = node as ASTNode;
    if (n.op === 'id') {
      if (n.args !== 'input' && n.args !== 'secrets') names.add(n.args);
      return;
    }
    if (n.op === '.' && n.args[0].op === 'id' && n.args[0].args === 'input') {
      names.add(n.args[1]);
      return;
    }
    walk(n.args);
  };
  try {
    walk(parse(expression).parsed.ast);
  } catch {
    return [];
  }
  return [...names];
}

function explain(message: string, what: string): string {
  const unknown = /^Unknown variable: (.+)$/.exec(message);
  if (unknown) return `${what} needs "${unknown[1]}", which the input does not have`;
  const noKey = /^No such key: (.+)$/.exec(message);
  if (noKey) return `${what} needs input.${noKey[1]}, which the input does not have`;
  return `${what} failed to evaluate: ${message}`;
}

function describe(value: unknown): string {
  if (typeof value === 'bigint') return `the integer ${value}`;
  if (value === null) return 'null';
  return `a ${typeof value}`;
}

function firstLine(text: string): string {
  return text.split('\n')[0]!.trim();
}
