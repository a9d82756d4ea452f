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
    expect(firstPath((d) => (d.transitions[2].trigger = { kind: 'on_aggregate', event: 'r', within_ticks: 5, aggregate: { fn: 'sum' }, op: '>', threshold: 1 }))).toBe('transitions[2].trigger.aggregate.field');
    expect(firstPath((d) => (d.transitions[2].trigger = { kind: 'on_aggregate', event: 'r', within_ticks: 5, aggregate: { fn: 'count' }, op: '=>', threshold: 1 }))).toBe('transitions[2].trigger.op');
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
