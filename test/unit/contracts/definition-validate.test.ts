import { describe, expect, it } from 'vitest';
import { definitionIssues, validateDefinition } from '../../../src/domain/contracts/definition-validate.js';

const known = new Set(['KO42', 'NM19']);
const deps = { operatorExists: (id: string) => known.has(id.toUpperCase()) };

const valid = () => ({
  name: 'force_threshold_alarm',
  version: '1.0',
  states: { idle: { initial: true }, watching: {}, alert: {}, cleared: { terminal: true } },
  transitions: [
    { from: 'idle', to: 'watching', operator: 'KO42' },
    { from: 'watching', to: 'alert', operator: 'NM19', condition: 'input.mass_kg * input.acceleration_ms2 > input.force_limit_n', proof_required: true },
    { from: 'alert', to: 'watching', operator: 'NM19', trigger: { kind: 'every', every_ticks: 60 } },
    { from: 'alert', to: 'cleared', operator: 'KO42', condition: 'acknowledged == true', post_actions: [{ type: 'emit', event: 'cleared' }] },
  ],
});

function firstPath(mutate: (d: any) => void): string | undefined {
  const d = valid();
  mutate(d);
  return definitionIssues(d, deps)[0]?.path;
}

describe('definition validation', () => {
  it('accepts the reference definition', () => {
    expect(definitionIssues(valid(), deps)).toEqual([]);
  });

  it('needs exactly one initial state', () => {
    expect(firstPath((d) => (d.states.watching.initial = true))).toBe('states');
    expect(firstPath((d) => delete d.states.idle.initial)).toBe('states');
  });

  it('names the transition whose from or to is not a state', () => {
    expect(firstPath((d) => (d.transitions[1].to = 'alarm'))).toBe('transitions[1].to');
    expect(firstPath((d) => (d.transitions[3].from = 'nowhere'))).toBe('transitions[3].from');
  });

  it('names an unknown operator, and one missing altogether', () => {
    expect(firstPath((d) => (d.transitions[1].operator = 'NOPE1'))).toBe('transitions[1].operator');
    expect(firstPath((d) => (d.transitions[0] = { from: 'idle', to: 'watching', operators: ['KO42', 'ZZ9'] }))).toBe('transitions[0].operators[1]');
    expect(firstPath((d) => delete d.transitions[0].operator)).toBe('transitions[0].operator');
  });

  it('names a condition that does not parse', () => {
    expect(firstPath((d) => (d.transitions[1].condition = 'input.x > '))).toBe('transitions[1].condition');
  });

  it('names malformed triggers by their exact member', () => {
    expect(firstPath((d) => (d.transitions[2].trigger = { kind: 'cron', cron: '61 * * * *' }))).toBe('transitions[2].trigger.cron');
    expect(firstPath((d) => (d.transitions[2].trigger = { kind: 'cron', cron: '0 0 1 * * *' }))).toBe('transitions[2].trigger.cron');
    expect(firstPath((d) => (d.transitions[2].trigger = { kind: 'every', every_ticks: 0 }))).toBe('transitions[2].trigger.every_ticks');
    expect(firstPath((d) => (d.transitions[2].trigger = { kind: 'one_shot' }))).toBe('transitions[2].trigger');
    expect(firstPath((d) => (d.transitions[2].trigger = { kind: 'on_logic' }))).toBe('transitions[2].trigger.kind');
    expect(
      firstPath((d) => (d.transitions[2].trigger = { kind: 'on_aggregate', event: 'r', within_ticks: 5, aggregate: { fn: 'sum' }, op: '>', threshold: 1 })),
    ).toBe('transitions[2].trigger.aggregate.field');
    expect(
      firstPath((d) => (d.transitions[2].trigger = { kind: 'on_aggregate', event: 'r', within_ticks: 5, aggregate: { fn: 'count' }, op: '=>', threshold: 1 })),
    ).toBe('transitions[2].trigger.op');
    expect(firstPath((d) => (d.transitions[2].trigger = { kind: 'every', every_ticks: 5, machine: 'x' }))).toBe('transitions[2].trigger.machine');
  });

  it('checks post-actions and accepts `kind` for `type`', () => {
    expect(firstPath((d) => (d.transitions[3].post_actions = [{ type: 'set_state', state: 'gone' }]))).toBe('transitions[3].post_actions[0].state');
    const d = valid() as any;
    d.transitions[3].post_actions = [{ kind: 'set_state', state: 'idle' }];
    expect(definitionIssues(d, deps)).toEqual([]);
    expect(d.transitions[3].post_actions[0].type).toBe('set_state');
  });

  it('throws 400 VALIDATION_FAILED with the first path in the message and every issue in details', () => {
    const d = valid() as any;
    d.transitions[2].trigger = { kind: 'cron', cron: 'not a cron' };
    d.transitions[1].to = 'alarm';
    try {
      validateDefinition(d, deps);
      expect.unreachable();
    } catch (err: any) {
      expect(err.code).toBe('VALIDATION_FAILED');
      expect(err.message).toContain('transitions[1].to');
      expect(err.details.path).toBe('transitions[1].to');
      expect(err.details.issues.map((i: any) => i.path)).toEqual(['transitions[1].to', 'transitions[2].trigger.cron']);
    }
  });
});

describe('operator_inputs validation', () => {
  const inputs: Record<string, string[]> = { NM19: ['m', 'a'], NM23: ['m', 'v'] };
  const withInputs = {
    operatorExists: (id: string) => id.toUpperCase() in inputs || id.toUpperCase() === 'KO42',
    operatorInputs: (id: string) => inputs[id.toUpperCase()] ?? [],
  };
  const issues = (mapping: unknown, tr: Record<string, unknown> = { operator: 'NM19' }) => {
    const d = valid() as any;
    d.transitions[1] = { ...d.transitions[1], ...tr, operator_inputs: mapping };
    return definitionIssues(d, withInputs);
  };

  it('accepts inputs of the transition operators, by name or ID.name, with numeric CEL expressions', () => {
    expect(issues({ m: 'input.mass_kg', a: 'input.acceleration_ms2' })).toEqual([]);
    expect(
      issues({ 'NM19.m': 'input.mass_g / 1000.0', 'nm23.v': 'input.speed_kmh / 3.6', a: '9.80665' }, { operator: undefined, operators: ['NM19', 'NM23'] }),
    ).toEqual([]);
  });

  it('names the transition and the key of an input no operator of the transition takes', () => {
    expect(issues({ mass: 'input.mass_kg' })).toEqual([
      { path: 'transitions[1].operator_inputs.mass', message: '"mass" is not an input of an operator of this transition (NM19: m, a)' },
    ]);
    expect(issues({ 'NM23.v': 'input.v' })[0]).toEqual({
      path: 'transitions[1].operator_inputs.NM23.v',
      message: '"NM23" is not an operator of this transition (NM19)',
    });
    expect(issues({ 'NM19.v': 'input.v' })[0]).toEqual({ path: 'transitions[1].operator_inputs.NM19.v', message: 'NM19 has no input "v" (its inputs: m, a)' });
    expect(issues({ m: 'input.m' }, { operator: 'KO42' })[0]!.message).toContain('it runs only KO42, which takes none');
  });

  it('refuses expressions that do not compile or are not numbers, and bounds the map', () => {
    expect(issues({ m: 'input.mass_kg *' })[0]!.message).toMatch(/^does not parse as a numeric CEL expression: /);
    expect(issues({ m: 'input.mass_kg > 1' })[0]).toEqual({
      path: 'transitions[1].operator_inputs.m',
      message: 'does not parse as a numeric CEL expression: evaluates to bool, not a number',
    });
    expect(issues({ m: 42 })[0]!.path).toBe('transitions[1].operator_inputs.m');
    expect(issues({ m: 'x'.repeat(501) })[0]!.message).toMatch(/1-500 characters/);
    expect(issues(['m'])[0]).toMatchObject({ path: 'transitions[1].operator_inputs', message: expect.stringContaining('is an object mapping') });
    expect(issues({})[0]!.message).toBe('operator_inputs maps 1-32 inputs');
    const big = Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`k${i}`, '1.0']));
    expect(issues(big)[0]!.message).toBe('operator_inputs maps 1-32 inputs');
  });

  it('checks only the shape and the expressions when the registry cannot list inputs', () => {
    const d = valid() as any;
    d.transitions[1].operator_inputs = { anything: 'input.x * 2' };
    expect(definitionIssues(d, deps)).toEqual([]);
    expect(() => validateDefinition(d, withInputs)).toThrow(
      /Invalid contract definition: transitions\[1\]\.operator_inputs\.anything: "anything" is not an input/,
    );
  });
});
