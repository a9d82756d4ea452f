import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { applyParams, createTemplateCatalogue, type Template } from '../../../src/domain/contracts/template-catalogue.js';

const fixtures = createTemplateCatalogue(fileURLToPath(new URL('../../fixtures/contract-templates', import.meta.url)));

const alarm: Template = {
  id: 'force-alarm',
  title: 'Force alarm',
  category: 'mechanics',
  description: 'alarm',
  uses: [],
  definition: {
    name: 'force_alarm',
    states: { watching: { initial: true }, alert: {} },
    transitions: [
      { from: 'watching', to: 'alert', operator: 'NM19', condition: 'input.mass_kg * input.acceleration_ms2 > input.force_limit_n' },
      { from: 'alert', to: 'alert', operator: 'KO42', trigger: { kind: 'every', every_ticks: 60 } },
    ],
  },
};

describe('template parameters', () => {
  it('loads template files and sets a declared parameter at its paths, leaving the template untouched', () => {
    const template = fixtures.get('fixture-heartbeat')!;
    const definition = applyParams(template, { every_ticks: 5 });
    expect(definition.transitions[0]!.trigger!.every_ticks).toBe(5);
    expect(template.definition.transitions[0]!.trigger!.every_ticks).toBe(60);
  });

  it('sets trigger settings on every trigger that has them and condition inputs as defaults', () => {
    const definition = applyParams(alarm, { every_ticks: 10, force_limit_n: 500 });
    expect(definition.transitions[1]!.trigger!.every_ticks).toBe(10);
    expect(definition.defaults).toEqual({ force_limit_n: 500 });
  });

  it('refuses a parameter the template does not take, naming the ones it does', () => {
    expect(() => applyParams(alarm, { colour: 'red' })).toThrow(/Unknown parameter "colour"/);
    try {
      applyParams(alarm, { colour: 'red' });
    } catch (err: any) {
      expect(err.details.issues[0].message).toContain('force_limit_n');
    }
  });
});
