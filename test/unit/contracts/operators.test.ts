import { afterEach, describe, expect, it } from 'vitest';
import { harness, OWNER, type Harness } from './harness.js';

const open: Harness[] = [];
afterEach(async () => {
  while (open.length > 0) await open.pop()!.close();
});

const alarm = {
  name: 'force_alarm',
  states: { watching: { initial: true }, alert: {} },
  transitions: [{ from: 'watching', to: 'alert', operator: 'NM19', condition: 'm * a > limit', proof_required: true }],
};

describe('operators in a fire', () => {
  it('evaluates a registry operator when the input carries its inputs, after KO42', async () => {
    const h = await harness();
    open.push(h);
    const id = await h.deploy(alarm);
    await h.core.services.contracts.control.transition('m1', id, OWNER, 'alert', { m: 2, a: 9.8, limit: 10 });
    const [row] = await h.rows(id);
    expect(row!.operators).toEqual(['KO42', 'NM19']);
    const steps = (row!.result as any).steps;
    expect(steps[0]).toMatchObject({ operator: 'KO42', evaluated: true });
    expect(steps[1]).toMatchObject({ operator: 'NM19', evaluated: true, unit: 'N' });
    expect(steps[1].value).toBeCloseTo(19.6, 9);
  });

  it('records an operator whose inputs are absent as not evaluated, without failing the fire', async () => {
    const h = await harness();
    open.push(h);
    const id = await h.deploy({ ...alarm, transitions: [{ ...alarm.transitions[0], condition: 'mass_kg > 1' }] });
    await h.core.services.contracts.control.transition('m1', id, OWNER, 'alert', { mass_kg: 2 });
    const [row] = await h.rows(id);
    expect(row!.success).toBe(true);
    expect((row!.result as any).steps[1]).toEqual({ operator: 'NM19', evaluated: false, missing: ['m', 'a'] });
  });

  it('fails the fire with compute_failed when an input is out of the operator bounds, and records it', async () => {
    const h = await harness();
    open.push(h);
    const id = await h.deploy(alarm);
    await expect(h.core.services.contracts.control.transition('m1', id, OWNER, 'alert', { m: -5, a: -9.8, limit: 10 })).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      details: { code: 'compute_failed' },
    });
    const [row] = await h.rows(id);
    expect(row).toMatchObject({ success: false, error: 'compute_failed', to_state: 'watching' });
  });
});
