/** Thrown for a malformed expression; solvers turn it into a 400 naming the input. */
export class ExpressionError extends Error {
}
const FUNCTIONS1 = {
    sin: Math.sin, cos: Math.cos, tan: Math.tan, asin: Math.asin, acos: Math.acos, atan: Math.atan,
    sinh: Math.sinh, cosh: Math.cosh, tanh: Math.tanh, asinh: Math.asinh, acosh: Math.acosh, atanh: Math.atanh,
    exp: Math.exp, expm1: Math.expm1, log: Math.log, ln: Math.log, log10: Math.log10, log2: Math.log2, log1p: Math.log1p,
    sqrt: Math.sqrt, cbrt: Math.cbrt, abs: Math.abs, floor: Math.floor, ceil: Math.ceil, sign: Math.sign,
};
const FUNCTIONS2 = {
    atan2: Math.atan2, pow: Math.pow, min: Math.min, max: Math.max, hypot: Math.hypot,
};
const CONSTANTS = { pi: Math.PI, e: Math.E };
/** Names a user may not use for variables or parameters. */
export const RESERVED_NAMES = new Set([...Object.keys(FUNCTIONS1), ...Object.keys(FUNCTIONS2), ...Object.keys(CONSTANTS)]);
const MAX_LENGTH = 4000;
const MAX_DEPTH = 200;
const NUMBER = /^(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?/;
const IDENT = /^[A-Za-z_][A-Za-z0-9_]*/;
function tokenize(src) {
    const tokens = [];
    let i = 0;
    while (i < src.length) {
        const ch = src[i];
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
export function compileExpression(src, names) {
    if (src.length > MAX_LENGTH)
        throw new ExpressionError(`expression longer than ${MAX_LENGTH} characters`);
    const index = new Map(names.map((n, i) => [n, i]));
    const tokens = tokenize(src);
    let p = 0;
    let depth = 0;
    const isOp = (op) => {
        const t = tokens[p];
        return t !== undefined && t.kind === 'op' && t.op === op;
    };
    const where = () => (tokens[p] ? `position ${tokens[p].pos + 1}` : 'the end');
    const expect = (op) => {
        if (!isOp(op))
            throw new ExpressionError(`expected "${op}" at ${where()}`);
        p++;
    };
    function additive() {
        if (++depth > MAX_DEPTH)
            throw new ExpressionError(`expression nested deeper than ${MAX_DEPTH} levels`);
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
    function multiplicative() {
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
    function unary() {
        if (++depth > MAX_DEPTH)
            throw new ExpressionError(`expression nested deeper than ${MAX_DEPTH} levels`);
        let out;
        if (isOp('-')) {
            p++;
            const inner = unary();
            out = (v) => -inner(v);
        }
        else if (isOp('+')) {
            p++;
            out = unary();
        }
        else {
            out = power();
        }
        depth--;
        return out;
    }
    function power() {
        const base = primary();
        if (!isOp('^'))
            return base;
        p++;
        // Right-associative and binding tighter than unary minus on its left: -x^2 = -(x^2), 2^-1 = 0.5.
        const exponent = unary();
        return (v) => Math.pow(base(v), exponent(v));
    }
    function primary() {
        const t = tokens[p];
        if (!t)
            throw new ExpressionError('unexpected end of expression');
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
            if (isOp('('))
                return call(t.name, t.pos);
            const i = index.get(t.name);
            if (i !== undefined)
                return (v) => v[i];
            const c = CONSTANTS[t.name];
            if (c !== undefined)
                return () => c;
            const known = names.length > 0 ? `; known names: ${names.join(', ')}` : '';
            throw new ExpressionError(`unknown name "${t.name}" at position ${t.pos + 1}${known}`);
        }
        throw new ExpressionError(`unexpected "${t.op}" at position ${t.pos + 1}`);
    }
    function call(name, pos) {
        expect('(');
        const args = [];
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
            if (args.length !== 1)
                throw new ExpressionError(`${name}() takes 1 argument, got ${args.length} (position ${pos + 1})`);
            const a = args[0];
            return (v) => f1(a(v));
        }
        const f2 = FUNCTIONS2[name];
        if (f2) {
            if (args.length !== 2)
                throw new ExpressionError(`${name}() takes 2 arguments, got ${args.length} (position ${pos + 1})`);
            const a = args[0];
            const b = args[1];
            return (v) => f2(a(v), b(v));
        }
        throw new ExpressionError(`unknown function "${name}" at position ${pos + 1}`);
    }
    if (tokens.length === 0)
        throw new ExpressionError('empty expression');
    const compiled = additive();
    if (p < tokens.length)
        throw new ExpressionError(`unexpected text at ${where()}`);
    return compiled;
}
//# sourceMappingURL=expr.js.map