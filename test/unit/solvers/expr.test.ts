import { describe, expect, it } from 'vitest';
import { compileExpression, ExpressionError } from '../../../src/domain/solvers/numeric/expr.js';

const evaluate = (src: string, vars: Record<string, number> = {}) => {
  const names = Object.keys(vars);
  return compileExpression(src, names)(Float64Array.from(names.map((n) => vars[n]!)));
};

describe('expression compiler', () => {
  it('follows the usual precedence: unary minus below ^, ^ right-associative, ** as ^', () => {
    expect(evaluate('-x^2', { x: 3 })).toBe(-9);
    expect(evaluate('2^-1')).toBe(0.5);
    expect(evaluate('2^3^2')).toBe(512);
    expect(evaluate('2**3')).toBe(8);
    expect(evaluate('1 + 2 * 3 - 4 / 2')).toBe(5);
    expect(evaluate('(1 + 2) * 3')).toBe(9);
    expect(evaluate('1.5e3 + .5')).toBe(1500.5);
  });

  it('knows pi, e and the Math functions with their arity', () => {
    expect(evaluate('sin(pi/2) + cos(0) + exp(0) + log(e)')).toBe(4);
    expect(evaluate('atan2(1, 1)')).toBe(Math.PI / 4);
    expect(evaluate('max(a, b) - min(a, b)', { a: 2, b: 7 })).toBe(5);
    expect(evaluate('hypot(3, 4)')).toBe(5);
  });

  it('refuses bad expressions with the position of the problem', () => {
    const bad =
      (src: string, names: string[] = ['x']) =>
      () =>
        compileExpression(src, names);
    expect(bad('x +')).toThrow(ExpressionError);
    expect(bad('foo(x)')).toThrow('unknown function "foo"');
    expect(bad('y + 1')).toThrow('unknown name "y" at position 1');
    expect(bad('sin(x, x)')).toThrow('takes 1 argument');
    expect(bad('x; process.exit()')).toThrow('unexpected character ";"');
    expect(bad('x.constructor')).toThrow(ExpressionError);
    expect(bad('(x')).toThrow('expected ")"');
    expect(bad('')).toThrow('empty expression');
    expect(bad('('.repeat(500) + 'x' + ')'.repeat(500))).toThrow('nested deeper');
  });
});
