import { describe, expect, it } from 'vitest';
import { conditionNames, conditionProblem, evaluateCondition } from '../../../src/domain/contracts/condition.js';

describe('CEL conditions', () => {
  it('reads input.x and bare x from the input', () => {
    expect(evaluateCondition('input.x > input.y', { x: 3, y: 2 })).toEqual({ ok: true, value: true });
    expect(evaluateCondition('x * y > 5', { x: 2, y: 3 })).toEqual({ ok: true, value: true });
    expect(evaluateCondition('buyer_signoff == true', { buyer_signoff: false })).toEqual({ ok: true, value: false });
  });

  it('mixes integer literals and decimal inputs in arithmetic and comparisons', () => {
    expect(evaluateCondition('x * 2 > 5', { x: 2.5 })).toEqual({ ok: true, value: false });
    expect(evaluateCondition('2 * x >= 5.0', { x: 2.5 })).toEqual({ ok: true, value: true });
    expect(evaluateCondition('input.mass_kg * input.acceleration_ms2 > input.force_limit_n', { mass_kg: 2, acceleration_ms2: 9.8, force_limit_n: 19 })).toEqual(
      { ok: true, value: true },
    );
    expect(evaluateCondition('x - 1 == 2', { x: 3 })).toEqual({ ok: true, value: true });
    expect(evaluateCondition('x % 2 == 0', { x: 4 })).toEqual({ ok: true, value: true });
  });

  it('supports &&, ||, ! and parentheses', () => {
    expect(evaluateCondition('(a > 1 && b < 2) || !c', { a: 3, b: 5, c: false })).toEqual({ ok: true, value: true });
  });

  it('says which key is missing, for input.x and bare x', () => {
    expect(evaluateCondition('input.amount > 0', {})).toEqual({ ok: false, error: 'condition needs input.amount, which the input does not have' });
    expect(evaluateCondition('amount > 0', {})).toEqual({ ok: false, error: 'condition needs "amount", which the input does not have' });
  });

  it('refuses a condition that is not a boolean', () => {
    const outcome = evaluateCondition('x + 1', { x: 1 });
    expect(outcome.ok).toBe(false);
  });

  it('reports parse problems and lists the input names an expression reads', () => {
    expect(conditionProblem('x >')).toBeTruthy();
    expect(conditionProblem('input.a > input.b && c == true')).toBeUndefined();
    expect(conditionNames('input.a > b && size(input.list) > 0').sort()).toEqual(['a', 'b', 'list']);
  });
});
