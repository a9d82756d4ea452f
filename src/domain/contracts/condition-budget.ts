import type { ASTNode, Environment } from '@marcbachmann/cel-js';
import { RE2JS } from 're2js';

/**
 * The budget of one CEL evaluation. Conditions come from callers and run on the event loop, so every
 * evaluation is bounded by counted work, never by a clock (a clock would make results depend on load):
 *
 * - `matches` runs on RE2 (re2js), linear in the text: no backtracking, so no backreferences and no
 *   look-around. Its pattern is at most `MAX_PATTERN` characters.
 * - Each comprehension iteration (`all`, `exists`, `exists_one`, `map`, `filter`) costs the size of its
 *   body in AST nodes; each `matches` costs the text length times the pattern length over 8. One
 *   evaluation may spend `MAX_STEPS`; beyond it, it stops with `BudgetExceeded`.
 * - Comprehensions nest at most `MAX_NESTING` deep (a definition with more is refused when written).
 *
 * The counter is module state: evaluation is synchronous (no async functions are registered), so one
 * evaluation runs from start to end before another starts.
 */
export const MAX_STEPS = 1_000_000;
export const MAX_NESTING = 2;
export const MAX_PATTERN = 256;

/** Name `matches` calls are renamed to, so they reach the RE2 implementation instead of cel-js's RegExp. */
const RE2_MATCHES = 'matches_re2';

/** Thrown when an evaluation spends its budget. */
export class BudgetExceeded extends Error {
  constructor() {
    super(`the expression needs more than ${MAX_STEPS} evaluation steps; iterate over fewer or smaller values, or nest fewer comprehensions`);
  }
}

let left = MAX_STEPS;
let exceeded = false;

function charge(steps: number): void {
  left -= steps;
  if (left < 0) {
    exceeded = true;
    throw new BudgetExceeded();
  }
}

/**
 * Runs one evaluation with a fresh budget. `overBudget` is true when the budget ran out anywhere inside,
 * even where CEL's error absorption (`a || b`, `exists`) would have let a value through.
 */
export function withBudget<T>(run: () => T): { value?: T; error?: unknown; overBudget: boolean } {
  left = MAX_STEPS;
  exceeded = false;
  try {
    const value = run();
    return exceeded ? { overBudget: true } : { value, overBudget: false };
  } catch (error) {
    return { error, overBudget: exceeded };
  } finally {
    left = MAX_STEPS;
    exceeded = false;
  }
}

const patterns = new Map<string, RE2JS>();
const MAX_CACHED_PATTERNS = 1000;

/** A pattern compiled for RE2, or the reason it cannot be. */
export function re2Problem(pattern: string): string | undefined {
  try {
    compile(pattern);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

function compile(pattern: string): RE2JS {
  let re = patterns.get(pattern);
  if (re !== undefined) return re;
  if (pattern.length > MAX_PATTERN) throw new Error(`a matches pattern is at most ${MAX_PATTERN} characters, got ${pattern.length}`);
  try {
    re = RE2JS.compile(pattern);
  } catch (err) {
    throw new Error(`invalid matches pattern "${pattern}" (RE2 syntax: no backreferences or look-around): ${(err as Error).message}`, { cause: err });
  }
  if (patterns.size >= MAX_CACHED_PATTERNS) patterns.clear();
  patterns.set(pattern, re);
  return re;
}

/** Registers the RE2 `matches`; call once on the environment the budgeted expressions use. */
export function registerBudgetedFunctions(env: Environment): void {
  env.registerFunction(`string.${RE2_MATCHES}(string): bool`, (text: string, pattern: string) => {
    const re = compile(pattern);
    charge((text.length + 1) * Math.ceil((pattern.length + 1) / 8));
    return re.matcher(text).find();
  });
}

/** Puts the internal name back in a message cel-js wrote about a renamed call. */
export const publicMessage = (message: string): string => message.replaceAll(RE2_MATCHES, 'matches');

/** An AST node as walked here (cel-js's own type lists no `comprehension`, which macros expand into). */
interface Node {
  op: string;
  args: unknown;
}

interface Comprehension {
  iterable: Node;
  init: Node;
  step: Node;
  condition?: (accu: unknown) => boolean;
}

const prepared = new WeakSet<object>();

/**
 * Readies a freshly parsed AST for a budgeted evaluation (before it is type-checked or run): `matches`
 * calls go to RE2 and every comprehension charges its body per iteration. Returns what a writer should
 * be told about the expression (literal patterns RE2 refuses, comprehensions nested too deep).
 */
export function prepareAst(root: ASTNode): string | undefined {
  let problem: string | undefined;
  const seen = new WeakSet<object>();
  const visit = (value: unknown, depth: number): void => {
    if (Array.isArray(value)) return value.forEach((v) => visit(v, depth));
    if (!isNode(value) || seen.has(value)) return;
    seen.add(value);
    const args = value.args as unknown[];
    if (value.op === 'rcall' && args[0] === 'matches' && Array.isArray(args[2]) && args[2].length === 1) {
      args[0] = RE2_MATCHES;
      const pattern = args[2][0] as Node;
      if (pattern.op === 'value' && typeof pattern.args === 'string') problem ??= re2Problem(pattern.args);
    }
    if (value.op === 'comprehension') {
      const c = value.args as unknown as Comprehension;
      if (depth + 1 > MAX_NESTING) problem ??= `comprehensions (all, exists, exists_one, map, filter) nest at most ${MAX_NESTING} deep`;
      meter(c);
      visit(c.iterable, depth);
      visit(c.init, depth);
      visit(c.step, depth + 1);
      return;
    }
    // A macro call (`l.all(x, ...)`) runs as its expansion: walk that, so its body counts as nested.
    const alternate = alternateOf(value);
    visit(alternate ?? value.args, depth);
  };
  visit(root, 0);
  return problem;
}

/** Makes a comprehension charge its body's size on each iteration (cel-js asks `condition` once per element). */
function meter(c: Comprehension): void {
  if (prepared.has(c)) return;
  prepared.add(c);
  const cost = 1 + sizeOf(c.step);
  const inner = c.condition;
  c.condition = inner
    ? (accu) => {
        charge(cost);
        return inner(accu);
      }
    : () => {
        charge(cost);
        return true;
      };
}

function sizeOf(root: Node): number {
  let n = 0;
  const seen = new WeakSet<object>();
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(visit);
    if (!isNode(value) || seen.has(value)) return;
    seen.add(value);
    n++;
    if (value.op === 'comprehension') {
      const c = value.args as unknown as Comprehension;
      visit(c.iterable);
      visit(c.init);
      // The inner body is charged by the inner comprehension itself, per its own iterations.
      return;
    }
    visit(alternateOf(value) ?? value.args);
  };
  visit(root);
  return n;
}

const alternateOf = (node: Node): unknown => (node as unknown as { meta?: { alternate?: unknown } }).meta?.alternate;

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && 'op' in value && 'args' in value && typeof (value as { op: unknown }).op === 'string';
}
