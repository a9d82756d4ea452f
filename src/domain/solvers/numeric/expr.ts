/**
 * A small arithmetic expression compiler for user-supplied functions (ODE right-hand sides, integrands,
 * objectives, potentials). It accepts numbers, named variables, `+ - * / ^` (`**` too), parentheses and a
 * fixed set of Math functions, and compiles to closures over a Float64Array of variable values.
 *
 * Why not `eval` or mathjs: the grammar is closed (no property access, no assignment, no user functions),
 * evaluation order is fixed by the tree, and every function is a plain `Math` call, so a compiled
 * expression gives the same bits on every run of the same Node version.
 */
export type Compiled = (vars: Float64Array) => number;

/** Thrown for a malformed expression; solvers turn it into a 400 naming the input. */
export class ExpressionError extends Error {}

const FUNCTIONS1: Record<string, (x: number) => number> = {
  sin: Math.sin,
  cos: Math.cos,
  tan: Math.tan,
  asin: Math.asin,
  acos: Math.acos,
  atan: Math.atan,
  sinh: Math.sinh,
  cosh: Math.cosh,
  tanh: Math.tanh,
  asinh: Math.asinh,
  acosh: Math.acosh,
  atanh: Math.atanh,
  exp: Math.exp,
  expm1: Math.expm1,
  log: Math.log,
  ln: Math.log,
  log10: Math.log10,
  log2: Math.log2,
  log1p: Math.log1p,
  sqrt: Math.sqrt,
  cbrt: Math.cbrt,
  abs: Math.abs,
  floor: Math.floor,
  ceil: Math.ceil,
  sign: Math.sign,
};
const FUNCTIONS2: Record<string, (x: number, y: number) => number> = {
  atan2: Math.atan2,
  pow: Math.pow,
  min: Math.min,
  max: Math.max,
  hypot: Math.hypot,
};
const CONSTANTS: Record<string, number> = { pi: Math.PI, e: Math.E };

/** Names a user may not use for variables or parameters. */
export const RESERVED_NAMES: ReadonlySet<string> = new Set([...Object.keys(FUNCTIONS1), ...Object.keys(FUNCTIONS2), ...Object.keys(CONSTANTS)]);

const MAX_LENGTH = 4000;
const MAX_DEPTH = 200;
const NUMBER = /^(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?/;
const IDENT = /^[A-Za-z_][A-Za-z0-9_]*/;

type Token = { kind: 'num'; value: number; pos: number } | { kind: 'id'; name: string; pos: number } | { kind: 'op'; op: string; pos: number };

function tokenize(src: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const ch = src[i]!;
    if (ch === ' ' || ch === '\t' || ch === '\n' || ch === '\r') {
      i++;
      continue;
    }
    const rest = src.slice(i, i + 128);
    const num = NUMBER.exec(rest);
    if (num) {
      tokens.push({ kind: 'num', value: Number(num[0]), pos: i });
      i += num[0].length;
      continue;
    }
    const id = IDENT.exec(rest);
    if (id) {
      tokens.push({ kind: 'id', name: id[0], pos: i });
      i += id[0].length;
      continue;
    }
    if (rest.startsWith('**')) {
      tokens.push({ kind: 'op', op: '^', pos: i });
      i += 2;
      continue;
    }
    if ('+-*/^(),'.includes(ch)) {
      tokens.push({ kind: 'op', op: ch, pos: i });
      i++;
      continue;
    }
    throw new ExpressionError(`unexpected character "${ch}" at position ${i + 1}`);
  }
  return tokens;
}

/**
 * Compiles `src` over the variables `names` (index i of the Float64Array holds `names[i]`).
 * Throws `ExpressionError` with the position of the first problem.
 */
export function compileExpression(src: string, names: readonly string[]): Compiled {
  if (src.length > MAX_LENGTH) throw new ExpressionError(`expression longer than ${MAX_LENGTH} characters`);
  const index = new Map(names.map((n, i) => [n, i]));
  const tokens = tokenize(src);
  let p = 0;
  let depth = 0;
  const isOp = (op: string) => {
    const t = tokens[p];
    return t !== undefined && t.kind === 'op' && t.op === op;
  };
  const where = () => (tokens[p] ? `position ${tokens[p]!.pos + 1}` : 'the end');
  const expect = (op: string) => {
    if (!isOp(op)) throw new ExpressionError(`expected "${op}" at ${where()}`);
    p++;
  };

  function additive(): Compiled {
    if (++depth > MAX_DEPTH) throw new ExpressionError(`expression nested deeper than ${MAX_DEPTH} levels`);
    let left = multiplicative();
    while (isOp('+') || isOp('-')) {
      const plus = isOp('+');
      p++;
      const l = left;
      const r = multiplicative();
      left = plus ? (v) => l(v) + r(v) : (v) => l(v) - r(v);
    }
    depth--;
    return left;
  }
  function multiplicative(): Compiled {
    let left = unary();
    while (isOp('*') || isOp('/')) {
      const times = isOp('*');
      p++;
      const l = left;
      const r = unary();
      left = times ? (v) => l(v) * r(v) : (v) => l(v) / r(v);
    }
    return left;
  }
  function unary(): Compiled {
    if (++depth > MAX_DEPTH) throw new ExpressionError(`expression nested deeper than ${MAX_DEPTH} levels`);
    let out: Compiled;
    if (isOp('-')) {
      p++;
      const inner = unary();
      out = (v) => -inner(v);
    } else if (isOp('+')) {
      p++;
      out = unary();
    } else {
      out = power();
    }
    depth--;
    return out;
  }
  function power(): Compiled {
    const base = primary();
    if (!isOp('^')) return base;
    p++;
    // Right-associative and binding tighter than unary minus on its left: -x^2 = -(x^2), 2^-1 = 0.5.
    const exponent = unary();
    return (v) => Math.pow(base(v), exponent(v));
  }
  function primary(): Compiled {
    const t = tokens[p];
    if (!t) throw new ExpressionError('unexpected end of expression');
    if (t.kind === 'num') {
      p++;
      const value = t.value;
      return () => value;
    }
    if (t.kind === 'op' && t.op === '(') {
      p++;
      const inner = additive();
      expect(')');
      return inner;
    }
    if (t.kind === 'id') {
      p++;
      if (isOp('(')) return call(t.name, t.pos);
      const i = index.get(t.name);
      if (i !== undefined) return (v) => v[i]!;
      const c = CONSTANTS[t.name];
      if (c !== undefined) return () => c;
      const known = names.length > 0 ? `; known names: ${names.join(', ')}` : '';
      throw new ExpressionError(`unknown name "${t.name}" at position ${t.pos + 1}${known}`);
    }
    throw new ExpressionError(`unexpected "${t.op}" at position ${t.pos + 1}`);
  }
  function call(name: string, pos: number): Compiled {
    expect('(');
    const args: Compiled[] = [];
    if (!isOp(')')) {
      args.push(additive());
      while (isOp(',')) {
        p++;
        args.push(additive());
      }
    }
    expect(')');
    const f1 = FUNCTIONS1[name];
    if (f1) {
      if (args.length !== 1) throw new ExpressionError(`${name}() takes 1 argument, got ${args.length} (position ${pos + 1})`);
      const a = args[0]!;
      return (v) => f1(a(v));
    }
    const f2 = FUNCTIONS2[name];
    if (f2) {
      if (args.length !== 2) throw new ExpressionError(`${name}() takes 2 arguments, got ${args.length} (position ${pos + 1})`);
      const a = args[0]!;
      const b = args[1]!;
      return (v) => f2(a(v), b(v));
    }
    throw new ExpressionError(`unknown function "${name}" at position ${pos + 1}`);
  }

  if (tokens.length === 0) throw new ExpressionError('empty expression');
  const compiled = additive();
  if (p < tokens.length) throw new ExpressionError(`unexpected text at ${where()}`);
  return compiled;
}
