import type { ASTNode, Environment } from '@marcbachmann/cel-js';
import { RE2JS } from 're2js';
import { charge } from './condition-meter.js';

/**
 * What a CEL evaluation is charged, by hooks installed on each node of its AST (`prepareAst`); the meter
 * itself, its limits and its deadline are in `condition-meter.ts`. The cost table:
 *
 * | what | units |
 * |---|---|
 * | each iteration of `all`, `exists`, `exists_one`, `map`, `filter` | `ITERATION` (10) + `NODE` (40) per node of its body (a nested comprehension's body charges per its own iterations) |
 * | nodes outside any comprehension | nothing: they run once, and an expression has at most 4000 |
 * | every value handed to a function or operator (`+`, `==`, `in`, `contains`, `startsWith`, `endsWith`, `matches`, `string()`, conversions...) | its deep size: 1 a character of a string or byte, `ELEMENT` (8) an element or entry of a list or map (and a key's characters), plus what they hold |
 * | the value a function, operator or macro returns (a concatenation, `string(x)`, `map`/`filter` results, list and map literals) | its size: 1 a character, `ELEMENT` an element or entry |
 * | `size()` of a string | `SIZE_CHAR` (8) a character: cel-js counts code points one by one |
 * | `size()` of a list or map, the list or map a macro iterates | `ELEMENT` an element or key |
 * | `matches` | also the text length times the pattern length over 8 (RE2 is linear in both) |
 *
 * A unit is about a nanosecond of this machine's work (measured: notes/cel.md): a cel-js node costs
 * 25-60 ns, a character scanned by `contains` or copied by `+` 0.5-1 ns, one counted by `size` 9 ns.
 * Arguments are charged when they are ready and before the function runs, so a function is refused
 * before it scans more than the budget left; a result is charged as soon as it exists.
 *
 * - `matches` runs on RE2 (re2js), linear in the text: no backtracking, so no backreferences and no
 *   look-around. Its pattern is at most `MAX_PATTERN` characters.
 * - Comprehensions nest at most `MAX_NESTING` deep (a definition with more is refused when written).
 */
export const MAX_NESTING = 2;
export const NODE = 40;
export const ITERATION = 10;
export const ELEMENT = 8;
export const SIZE_CHAR = 8;
export const MAX_PATTERN = 256;

/** Name `matches` calls are renamed to, so they reach the RE2 implementation instead of cel-js's RegExp. */
const RE2_MATCHES = 'matches_re2';

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
  handle?: Handle;
  readonly meta: { alternate?: Node; check: Check };
  setMeta(key: 'check', value: Check): Node;
}
type Check = (chk: unknown, ast: Node, ctx: unknown) => unknown;
type Handle = (...args: unknown[]) => unknown;

interface Comprehension {
  iterable: Node;
  init: Node;
  step: Node;
  condition?: (accu: unknown) => boolean;
}

const OPERATORS = new Set(['!=', '==', 'in', '+', '-', '*', '/', '%', '<', '<=', '>', '>=', '!_', '-_']);
/** Operators whose value is a boolean: nothing produced to charge. */
const RELATIONS = new Set(['!=', '==', 'in', '<', '<=', '>', '>=', '!_']);

/** Nodes and comprehensions already metered, so one reached twice (a macro's receiver is its comprehension's iterable) charges once. */
const metered = new WeakSet<object>();

/**
 * Readies a freshly parsed AST for a metered evaluation (before it is type-checked or run): `matches`
 * calls go to RE2, every comprehension charges its body's nodes per iteration, and every function,
 * operator and comprehension charges the values it is handed and the value it returns (the table above).
 * Returns what a writer should be told about the expression (literal patterns RE2 refuses,
 * comprehensions nested too deep).
 *
 * Values are charged in the node's `handle`, the function cel-js calls with the evaluated arguments: the
 * hook is installed when the node is type-checked (cel-js sets `handle` then) and adds one call per
 * function call, not one per node (a wrapper on every node's `evaluate` made `l.all(x, x >= 0)` 4x slower).
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
      meterIterations(c);
      meterValues(value);
      visit(c.iterable, depth);
      visit(c.init, depth);
      visit(c.step, depth + 1);
      return;
    }
    // A macro call (`l.all(x, ...)`) runs as its expansion: walk that, so its body counts as nested.
    const alternate = value.meta.alternate;
    if (alternate) return visit(alternate, depth);
    if (value.op === 'call' || value.op === 'rcall' || OPERATORS.has(value.op)) meterValues(value);
    visit(value.args, depth);
  };
  visit(root, 0);
  return problem;
}

/** Wraps the node's `handle` as soon as type-checking sets it, with one that charges the values through it. */
function meterValues(node: Node): void {
  if (metered.has(node)) return;
  metered.add(node);
  const check = node.meta.check;
  node.setMeta('check', (chk, ast, ctx) => {
    const type = check(chk, ast, ctx);
    if (ast.handle !== undefined) ast.handle = meteredHandle(ast, ast.handle);
    return type;
  });
}

function meteredHandle(node: Node, handle: Handle): Handle {
  const produces = !RELATIONS.has(node.op);
  if (node.op === 'comprehension') {
    return (items, ...rest) => {
      charge(countOf(items));
      const value = handle(items, ...rest);
      charge(sizeOf(value));
      return value;
    };
  }
  if (node.op === 'call' || node.op === 'rcall') {
    // `size()` counts; every other function may scan all it is handed.
    const counts = (node.args as unknown[])[0] === 'size';
    return (values, ...rest) => {
      let units = 0;
      for (const v of values as unknown[]) units += counts ? countOf(v) : deepSize(v);
      charge(units);
      const value = handle(values, ...rest);
      charge(sizeOf(value));
      return value;
    };
  }
  if (node.op === '!_' || node.op === '-_') {
    return (a, ...rest) => {
      charge(deepSize(a));
      return handle(a, ...rest);
    };
  }
  return (a, b, ...rest) => {
    charge(deepSize(a) + deepSize(b));
    const value = handle(a, b, ...rest);
    if (produces) charge(sizeOf(value));
    return value;
  };
}

/** Makes a comprehension charge its body's nodes on each iteration (cel-js asks `condition` once per element). */
function meterIterations(c: Comprehension): void {
  if (metered.has(c)) return;
  metered.add(c);
  const cost = ITERATION + NODE * nodesOf(c.step);
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

/** Nodes of a comprehension's body, a nested comprehension's own body left out (it charges per its own iterations). */
function nodesOf(root: Node): number {
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
      return;
    }
    visit(value.meta.alternate ?? value.args);
  };
  visit(root);
  return n;
}

/** What `size()` or a macro's iteration costs on a value: its characters counted one by one, or its elements. */
function countOf(value: unknown): number {
  return typeof value === 'string' ? value.length * SIZE_CHAR : sizeOf(value);
}

/** Sizes of objects already measured; a list is measured again when its length changed (a `map` accumulator grows). */
const measured = new WeakMap<object, { length: number; size: number; deep: number }>();

/** Characters of a string and bytes at 1, elements of a list and entries of a map at `ELEMENT`; 0 for a scalar. */
export function sizeOf(value: unknown): number {
  if (typeof value === 'string') return value.length;
  if (typeof value !== 'object' || value === null) return 0;
  return measure(value).size;
}

/** `sizeOf` the value plus the deep size of everything it holds. */
export function deepSize(value: unknown): number {
  if (typeof value === 'string') return value.length;
  if (typeof value !== 'object' || value === null) return 0;
  return measure(value).deep;
}

function measure(value: object): { length: number; size: number; deep: number } {
  const length = Array.isArray(value) ? value.length : -1;
  const known = measured.get(value);
  if (known !== undefined && known.length === length) return known;
  let size = 0;
  let deep = 0;
  if (ArrayBuffer.isView(value)) size = deep = value.byteLength;
  else if (Array.isArray(value)) {
    size = deep = value.length * ELEMENT;
    for (const v of value as unknown[]) deep += deepSize(v);
  } else if (value instanceof Map) {
    size = deep = value.size * ELEMENT;
    for (const [k, v] of value) deep += deepSize(k) + deepSize(v);
  } else if (value instanceof Set) {
    size = deep = value.size * ELEMENT;
    for (const v of value) deep += deepSize(v);
  } else {
    for (const k in value) {
      size += ELEMENT;
      deep += ELEMENT + k.length + deepSize((value as Record<string, unknown>)[k]);
    }
  }
  const m = { length, size, deep };
  measured.set(value, m);
  return m;
}

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && 'op' in value && 'args' in value && typeof (value as { op: unknown }).op === 'string';
}
