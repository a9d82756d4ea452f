import { describe, expect, it } from 'vitest';
import { checkExpression } from '../../../src/domain/community/expression-guard.js';
import { loadMathEngine } from '../../../src/domain/operators/math-engine.js';

const check = async (expr: string, inputs = ['m', 'v']) => {
  const { math } = await loadMathEngine();
  try {
    checkExpression(math.parse(expr), inputs);
    return 'ok';
  } catch (err) {
    return (err as Error).message;
  }
};

describe('proposed expressions', () => {
  it('accept arithmetic over the inputs, registry constants, pi and allowed functions', async () => {
    for (const e of ['0.5 * m * v^2', 'm * c0^2', 'sqrt(m) + sin(pi * v)', 'm > v ? m : v', 'max(m, v) / hypot(m, v)', '-m!']) {
      expect(await check(e), e).toBe('ok');
    }
  });

  it('refuse anything that could change the shared math instance or reach beyond numbers', async () => {
    const cases: Array<[string, RegExp]> = [
      ['import({pi: 3}, {override: true})', /not allowed/],
      ['createUnit("zz")', /function "createUnit"/],
      ['evaluate("1+1")', /function "evaluate"/],
      ['x = 3', /assignment/],
      ['f(x) = x', /functionassignment/],
      ['[m, v]', /array/],
      ['m; v', /block/],
      ['"text"', /numeric literals/],
      ['m * q', /"q" is neither/],
      ['(sqrt)(m)', /"sqrt" is neither/],
    ];
    for (const [e, why] of cases) expect(await check(e), e).toMatch(why);
  });
});
