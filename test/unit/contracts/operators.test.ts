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

describe('operator_inputs in a fire', () => {
  const mapped = {
    name: 'force_alarm_kg',
    states: { watching: { initial: true }, alert: {} },
    transitions: [
      {
        from: 'watching',
        to: 'alert',
        operator: 'NM19',
        operator_inputs: { m: 'input.mass_g / 1000.0', a: 'input.acceleration_ms2' },
        condition: 'input.mass_g > 0.0',
        proof_required: true,
      },
    ],
  };

  it('feeds the operator the values of its mapped expressions, records them, and the receipt verifies', async () => {
    const h = await harness();
    open.push(h);
    const id = await h.deploy(mapped);
    await h.core.services.contracts.control.transition('m1', id, OWNER, 'alert', { mass_g: 2000, acceleration_ms2: 9.8 });
    const [row] = await h.rows(id);
    expect(row!.success).toBe(true);
    const step = (row!.result as any).steps[1];
    expect(step).toMatchObject({ operator: 'NM19', evaluated: true, unit: 'N', inputs: { m: 2, a: 9.8 } });
    expect(step.value).toBeCloseTo(19.6, 9);
    // The input the receipt binds is what the caller gave; the values used are in the result it binds.
    expect(row!.input).toEqual({ mass_g: 2000, acceleration_ms2: 9.8 });
    const verdict = await h.core.services.contracts.audit.verify(await h.core.services.contracts.core.find('m1', id));
    expect(verdict).toMatchObject({ valid: true, broken_at: null });
  });

  it('lets an ID.name key target one operator of a chain and a bare name reach the others', async () => {
    const h = await harness();
    open.push(h);
    const id = await h.deploy({
      ...mapped,
      transitions: [
        {
          from: 'watching',
          to: 'alert',
          operators: ['NM19', 'NM26'],
          operator_inputs: { m: 'input.mass_kg', 'NM26.m': 'input.mass_kg * 2.0', a: '9.8', v: 'input.speed' },
        },
      ],
    });
    await h.core.services.contracts.control.transition('m1', id, OWNER, 'alert', { mass_kg: 3, speed: 4 });
    const steps = (await h.rows(id))[0]!.result as any;
    expect(steps.steps.map((s: any) => [s.operator, s.inputs])).toEqual([
      ['KO42', undefined],
      ['NM19', { m: 3, a: 9.8 }],
      ['NM26', { m: 6, v: 4 }],
    ]);
  });

  it('records an operator whose mapped expression fails or is not a finite number as not evaluated, with the reason', async () => {
    const h = await harness();
    open.push(h);
    const id = await h.deploy(mapped);
    await h.core.services.contracts.control.transition('m1', id, OWNER, 'alert', { mass_g: 2000 });
    const [row] = await h.rows(id);
    expect(row!.success).toBe(true);
    expect((row!.result as any).steps[1]).toEqual({
      operator: 'NM19',
      evaluated: false,
      missing: ['a'],
      reason: 'operator_inputs a: expression needs input.acceleration_ms2, which the input does not have',
    });
    const zero = await h.deploy({
      ...mapped,
      name: 'zero',
      transitions: [{ ...mapped.transitions[0], operator_inputs: { m: 'input.mass_g / input.divisor', a: '9.8' } }],
    });
    await h.core.services.contracts.control.transition('m1', zero, OWNER, 'alert', { mass_g: 2000, divisor: 0 });
    expect(((await h.rows(zero))[0]!.result as any).steps[1]).toMatchObject({
      evaluated: false,
      missing: ['m'],
      reason: expect.stringContaining('not a finite number'),
    });
  });

  it('fails the fire with compute_failed when a mapped value is out of the operator bounds', async () => {
    const h = await harness();
    open.push(h);
    const { condition: _c, ...unconditional } = mapped.transitions[0]!;
    const id = await h.deploy({ ...mapped, transitions: [unconditional] });
    await expect(h.core.services.contracts.control.transition('m1', id, OWNER, 'alert', { mass_g: -5000, acceleration_ms2: 9.8 })).rejects.toMatchObject({
      details: { code: 'compute_failed' },
    });
    const [row] = await h.rows(id);
    expect(row).toMatchObject({ success: false, error: 'compute_failed', error_message: 'Input "m" of NM19 is -5 kg, below its minimum 0 kg' });
  });

  it('refuses a definition whose operator_inputs name no input of the transition operators', async () => {
    const h = await harness();
    open.push(h);
    await expect(h.deploy({ ...mapped, transitions: [{ ...mapped.transitions[0], operator_inputs: { mass: 'input.mass_g' } }] })).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      message: expect.stringContaining('transitions[0].operator_inputs.mass: "mass" is not an input of an operator of this transition (NM19: m, a)'),
    });
  });
});
