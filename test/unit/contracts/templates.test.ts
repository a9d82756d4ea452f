import { describe, expect, it } from 'vitest';
import { conditionNames } from '../../../src/domain/contracts/condition.js';
import { validateDefinition } from '../../../src/domain/contracts/definition-validate.js';
import { applyParams } from '../../../src/domain/contracts/template-catalogue.js';
import { isTimeTrigger } from '../../../src/domain/contracts/triggers.js';
import { createOperatorsService } from '../../../src/domain/operators/operators.service.js';
import { createTemplateCatalogue, eventsOf, operatorsOf } from '../../../src/domain/templates/template-catalogue.service.js';
import type { CuratedTemplate } from '../../../src/domain/templates/template.types.js';
import { unitOf } from '../../../src/domain/templates/units.js';
import { createFakeClock } from '../../../src/lib/clock.js';

const operators = createOperatorsService({ clock: createFakeClock(1_700_000_000_000) });
const catalogue = createTemplateCatalogue();
const templates = catalogue.all();
const byId = (id: string) => templates.find((t) => t.id === id)!;
const validate = (definition: unknown) =>
  validateDefinition(structuredClone(definition), {
    operatorExists: (id) => operators.exists(id),
    operatorInputs: (id) => operators.get(id)?.inputs.map((i) => i.name),
  });

const CATEGORIES: Record<string, string> = {
  foundations: 'Foundations',
  mechanics: 'Mechanics',
  quantum: 'Quantum',
  'atomic-physics': 'Atomic Physics',
  'thermo-and-information': 'Thermo & Information',
  relativity: 'Relativity',
  'network-and-comms': 'Network & Comms',
  'fluid-dynamics': 'Fluid Dynamics',
  operations: 'Operations',
  'climate-science': 'Climate Science',
  medical: 'Medical',
  cryptography: 'Cryptography',
};

/** Reads `transitions[0].trigger.every_ticks`-style paths. */
function at(target: unknown, dotted: string): unknown {
  return dotted
    .replace(/\[(\d+)\]/g, '.$1')
    .split('.')
    .reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], target);
}

/** Names a worked example supplies (inputs and event payloads). */
function exampleNames(t: CuratedTemplate): Set<string> {
  return new Set(t.walkthrough.steps.flatMap((s) => Object.keys('input' in s ? s.input : 'payload' in s ? s.payload : {})));
}

describe('template catalogue', () => {
  it('loads every template file with no problem reported', () => {
    expect(catalogue.problems()).toEqual([]);
    expect(templates.length).toBeGreaterThanOrEqual(69);
  });

  it('has the twelve categories of the reference with their display names, each holding templates', () => {
    const categories = catalogue.categories();
    expect(Object.fromEntries(categories.map((c) => [c.id, c.name]))).toEqual(CATEGORIES);
    for (const c of categories) expect(c.count, c.id).toBeGreaterThanOrEqual(5);
    expect(categories.find((c) => c.id === 'mechanics')!.count).toBe(5);
    expect(categories.reduce((sum, c) => sum + c.count, 0)).toBe(templates.length);
  });

  it('validates every template definition with the contract validator against the operator registry', () => {
    for (const t of templates) expect(() => validate(t.definition), t.id).not.toThrow();
  });

  it('follows the naming conventions: kebab-case id, snake_case definition name of the id, version 1.0, audit clock on', () => {
    for (const t of templates) {
      expect(t.id).toMatch(/^[a-z0-9]+(?:-[a-z0-9]+)*$/);
      expect(t.definition.name, t.id).toBe(t.id.replace(/-/g, '_'));
      expect(t.definition.version, t.id).toBe('1.0');
      expect(t.definition.audit_clock, t.id).toBe(true);
      expect(t.definition.tick_rate, t.id).toBe(1);
      expect(t.uses.length, t.id).toBeGreaterThanOrEqual(3);
    }
  });

  it('requires a proof on every transition that runs a physics operator, and none on acknowledgements', () => {
    for (const t of templates) {
      for (const [i, tr] of t.definition.transitions.entries()) {
        const physics = operatorsOf(tr).some((id) => operators.get(id)?.proof_required === true);
        if (physics) expect(tr.proof_required, `${t.id} transitions[${i}]`).toBe(true);
        if (tr.condition === 'input.acknowledged == true') {
          expect(operatorsOf(tr), `${t.id} transitions[${i}]`).toEqual(['KO42']);
          expect(tr.proof_required, `${t.id} transitions[${i}]`).toBe(false);
        }
      }
    }
  });

  it('builds watch templates on the four-state shape with <var>_watch and <var>_alert thresholds and a KO42 acknowledgement', () => {
    const watches = templates.filter((t) => Object.keys(t.definition.states).join() === 'nominal,watch,alert,acknowledged');
    expect(watches.length).toBeGreaterThanOrEqual(8);
    for (const t of watches) {
      const [up, alert, down, ack] = t.definition.transitions;
      const v = /^input\.(\w+) > input\.\1_watch$/.exec(up!.condition ?? '')?.[1];
      expect(v, t.id).toBeDefined();
      expect([up!.from, up!.to, alert!.from, alert!.to, down!.from, down!.to, ack!.from, ack!.to]).toEqual([
        'nominal',
        'watch',
        'watch',
        'alert',
        'watch',
        'nominal',
        'alert',
        'acknowledged',
      ]);
      expect(alert!.condition).toBe(`input.${v} > input.${v}_alert`);
      expect(down!.condition).toBe(`input.${v} <= input.${v}_watch`);
      expect(ack!.condition).toBe('input.acknowledged == true');
      expect(t.params[`${v}_watch`], t.id).toBeDefined();
      expect(t.params[`${v}_alert`], t.id).toBeDefined();
    }
  });

  it('keeps every parameter default equal to the value the definition holds, so deploying the defaults changes nothing', () => {
    for (const t of templates) {
      const defaults = t.definition.defaults ?? {};
      for (const [name, param] of Object.entries(t.params)) {
        if (param.paths) for (const path of param.paths) expect(at(t.definition, path), `${t.id} ${name} ${path}`).toEqual(param.default);
        else expect(defaults[name], `${t.id} ${name}`).toEqual(param.default);
        expect(unitOf(param.unit ?? ''), `${t.id} ${name} unit "${param.unit}"`).toBeDefined();
      }
      for (const name of Object.keys(defaults)) expect(t.params[name], `${t.id} default ${name} is a declared parameter`).toBeDefined();
      const params = Object.fromEntries(Object.entries(t.params).map(([name, p]) => [name, p.default]));
      expect(applyParams(t, params), t.id).toEqual(t.definition);
    }
  });

  it('reads in its conditions only parameters and values its worked example supplies', () => {
    for (const t of templates) {
      const known = new Set([...Object.keys(t.definition.defaults ?? {}), ...exampleNames(t)]);
      for (const tr of t.definition.transitions) {
        for (const name of tr.condition ? conditionNames(tr.condition) : []) {
          // Inputs of transitions the example does not take (a dismissal, a false positive) are caller-supplied flags.
          if (!known.has(name)) expect(tr.condition, `${t.id}: ${name}`).toMatch(new RegExp(`input\\.${name} == true`));
        }
      }
    }
  });

  it('uses the operator input names where a condition computes from them, and its example gives every input of that operator', () => {
    let computing = 0;
    for (const t of templates) {
      const supplied = new Set([...Object.keys(t.definition.defaults ?? {}), ...exampleNames(t)]);
      for (const tr of t.definition.transitions) {
        const read = new Set(tr.condition ? conditionNames(tr.condition) : []);
        for (const id of operatorsOf(tr)) {
          const inputs = operators.get(id)!.inputs.map((i) => i.name);
          if (id === 'KO42' || !inputs.some((name) => read.has(name))) continue;
          computing++;
          const mapped = (name: string) => tr.operator_inputs?.[name] !== undefined || tr.operator_inputs?.[`${id}.${name}`] !== undefined;
          for (const name of inputs) expect(supplied.has(name) || mapped(name), `${t.id} ${id} needs ${name}`).toBe(true);
        }
      }
    }
    expect(computing).toBeGreaterThan(40);
  });

  it('maps operator inputs only from parameters and values its worked example supplies', () => {
    let mapped = 0;
    for (const t of templates) {
      const supplied = new Set([...Object.keys(t.definition.defaults ?? {}), ...exampleNames(t)]);
      for (const [i, tr] of t.definition.transitions.entries()) {
        for (const [key, expression] of Object.entries(tr.operator_inputs ?? {})) {
          mapped++;
          for (const name of conditionNames(expression))
            expect(supplied.has(name), `${t.id} transitions[${i}].operator_inputs.${key} reads ${name}`).toBe(true);
        }
      }
    }
    expect(mapped).toBeGreaterThan(20);
  });

  it('gives every template a worked example whose steps exist in the definition and that ends in a terminal state when there is one', () => {
    for (const t of templates) {
      const { listens } = eventsOf(t);
      const states = t.definition.states;
      let state = Object.keys(states).find((s) => states[s]!.initial)!;
      for (const step of t.walkthrough.steps) {
        expect(Object.keys(states), `${t.id} expects ${step.expect}`).toContain(step.expect);
        if ('transition' in step)
          expect(
            t.definition.transitions.some((tr) => tr.from === state && tr.to === step.transition),
            `${t.id}: ${state} → ${step.transition}`,
          ).toBe(true);
        if ('event' in step) expect(listens, `${t.id} listens to ${step.event}`).toContain(step.event);
        if ('fire_now' in step)
          expect(
            t.definition.transitions.some((tr) => tr.from === state && isTimeTrigger(tr.trigger)),
            `${t.id}: scheduled from ${state}`,
          ).toBe(true);
        state = step.expect;
      }
      const terminals = Object.keys(states).filter((s) => states[s]!.terminal);
      if (terminals.length > 0) expect(terminals, `${t.id} ends in ${state}`).toContain(state);
    }
  });

  it('lists and searches templates with pagination, category and text filters', () => {
    const first = catalogue.list({ limit: 10 });
    expect(first.total).toBe(templates.length);
    expect(first.templates).toHaveLength(10);
    const second = catalogue.list({ limit: 10, cursor: first.next_cursor! });
    expect(second.templates[0]!.id).not.toBe(first.templates[0]!.id);
    expect(catalogue.list({ category: 'relativity', limit: 50 }).templates.every((t) => t.category === 'relativity')).toBe(true);
    expect(catalogue.list({ q: 'escrow deadline', limit: 50 }).templates.map((t) => t.id)).toContain('timelock-release');
    expect(() => catalogue.list({ category: 'alchemy', limit: 5 })).toThrow(/Unknown template category "alchemy"; categories: foundations/);
    expect(() => catalogue.get('no-such-template')).toThrow(/No template "no-such-template"/);
  });
});

/** The curated templates the reference names, with the shape it gives. */
const FACTS: Array<{
  id: string;
  category: string;
  initial: string;
  terminal: string[];
  has: Array<[from: string, to: string, operator: string, what?: string]>;
}> = [
  {
    id: 'scheduled-compute',
    category: 'foundations',
    initial: 'running',
    terminal: ['stopped'],
    has: [
      ['running', 'running', 'KO42', 'every 60 emit scheduled_tick'],
      ['running', 'stopped', 'KO42', 'input.stop == true'],
    ],
  },
  {
    id: 'threshold-monitor',
    category: 'foundations',
    initial: 'normal',
    terminal: [],
    has: [
      ['normal', 'breached', 'KO42', 'avg value > 100 over 60 on reading emit threshold_breached'],
      ['breached', 'normal', 'KO42', 'avg value <= 90 over 60 on reading emit threshold_cleared'],
    ],
  },
  {
    id: 'oracle-feed',
    category: 'foundations',
    initial: 'live',
    terminal: ['paused'],
    has: [
      ['live', 'live', 'KO42', 'every 60 emit oracle_datum'],
      ['live', 'paused', 'KO42', 'input.pause == true'],
    ],
  },
  {
    id: 'approval-workflow',
    category: 'foundations',
    initial: 'pending',
    terminal: ['approved', 'rejected'],
    has: [
      ['pending', 'approved', 'KO42', 'count >= 3 over 1000000 on approve emit approval_granted'],
      ['pending', 'rejected', 'KO42', 'on reject emit approval_denied'],
    ],
  },
  {
    id: 'timelock-release',
    category: 'foundations',
    initial: 'held',
    terminal: ['released', 'expired'],
    has: [
      ['held', 'released', 'KO42', 'count >= 2 over 1000000 on sign emit released'],
      ['held', 'expired', 'KO42', 'at_unix 4102444800 emit expired'],
    ],
  },
  {
    id: 'supply-chain-provenance',
    category: 'foundations',
    initial: 'origin',
    terminal: ['delivered'],
    has: [
      ['origin', 'in_transit', 'KO42', 'on handoff emit custody_changed'],
      ['in_transit', 'in_transit', 'KO42', 'on handoff emit custody_changed'],
      ['in_transit', 'delivered', 'KO42', 'on delivered emit chain_closed'],
    ],
  },
  {
    id: 'telemetry-rollup',
    category: 'foundations',
    initial: 'collecting',
    terminal: [],
    has: [
      ['collecting', 'flagged', 'KO42', 'sum units > 1000 over 300 on telemetry emit quota_exceeded'],
      ['flagged', 'collecting', 'KO42', 'sum units <= 1000 over 300 on telemetry emit quota_normal'],
    ],
  },
  { id: 'rate-limiter', category: 'foundations', initial: 'allowing', terminal: [], has: [['allowing', 'limiting', 'KO42', 'count > 100 over 60 on request']] },
  {
    id: 'subscription-billing',
    category: 'foundations',
    initial: 'active',
    terminal: ['suspended'],
    has: [
      ['active', 'active', 'KO42', 'cron 0 0 1 * * emit invoice_due'],
      ['active', 'past_due', 'KO42', 'on payment_failed emit subscription_past_due'],
      ['past_due', 'active', 'KO42', 'on payment_ok emit subscription_resumed'],
      ['past_due', 'suspended', 'KO42', 'on grace_expired emit subscription_suspended'],
    ],
  },
  { id: 'attestation-notary', category: 'foundations', initial: 'ready', terminal: [], has: [['ready', 'ready', 'KO42', 'proof on notarize emit attested']] },
  {
    id: 'force-threshold-alarm',
    category: 'mechanics',
    initial: 'idle',
    terminal: ['cleared'],
    has: [
      ['idle', 'watching', 'KO42'],
      ['watching', 'alert', 'NM19', 'proof input.mass_kg * input.acceleration_ms2 > input.force_limit_n'],
      ['alert', 'watching', 'NM19', 'proof input.mass_kg * input.acceleration_ms2 <= input.force_limit_n'],
      ['alert', 'cleared', 'KO42', 'input.acknowledged == true'],
    ],
  },
  {
    id: 'harmonic-fatigue-watch',
    category: 'mechanics',
    initial: 'nominal',
    terminal: ['failing'],
    has: [
      ['nominal', 'worn', 'NM30'],
      ['worn', 'failing', 'NM30'],
    ],
  },
  {
    id: 'orbital-decay-monitor',
    category: 'mechanics',
    initial: 'stable_orbit',
    terminal: ['deorbit_planned'],
    has: [
      ['stable_orbit', 'decaying', 'NM21', 'on pass'],
      ['decaying', 'deorbit_planned', 'NM21', 'on pass'],
    ],
  },
  {
    id: 'energy-conservation-auditor',
    category: 'mechanics',
    initial: 'balanced',
    terminal: ['reconciled'],
    has: [['balanced', 'violation', 'NM23+NM24+NM25']],
  },
  { id: 'momentum-surge-detector', category: 'mechanics', initial: 'steady', terminal: ['investigated'], has: [['steady', 'surging', 'NM26+NM27']] },
  {
    id: 'photon-budget-counter',
    category: 'quantum',
    initial: 'counting',
    terminal: ['reset'],
    has: [
      ['counting', 'saturated', 'QM10', 'proof input.dose_joules >= input.budget_joules'],
      ['saturated', 'reset', 'KO42', 'input.sample_swapped == true'],
    ],
  },
  {
    id: 'spectral-line-classifier',
    category: 'atomic-physics',
    initial: 'scanning',
    terminal: ['logged'],
    has: [
      ['scanning', 'identified', 'XION_1', 'input.line_match_confidence > input.match_threshold'],
      ['scanning', 'flagged', 'XION_2', 'input.unexpected_line == true'],
      ['identified', 'logged', 'KO42', 'input.recorded == true'],
      ['flagged', 'logged', 'KO42', 'input.recorded == true'],
    ],
  },
  {
    id: 'landauer-energy-audit',
    category: 'thermo-and-information',
    initial: 'within_budget',
    terminal: ['rebalanced'],
    has: [
      ['within_budget', 'over_budget', 'LZ1', 'proof input.erasure_joules > input.budget_joules'],
      ['over_budget', 'within_budget', 'LZ1'],
      ['over_budget', 'rebalanced', 'KO42', 'input.rebalanced == true'],
    ],
  },
  {
    id: 'entropy-anomaly-detector',
    category: 'thermo-and-information',
    initial: 'baseline',
    terminal: ['triaged'],
    has: [
      ['baseline', 'anomalous', 'CS47', 'input.entropy_bits > input.anomaly_threshold_bits'],
      ['anomalous', 'baseline', 'CS47'],
      ['anomalous', 'triaged', 'KO42', 'input.triaged == true'],
    ],
  },
  {
    id: 'time-dilation-logger',
    category: 'relativity',
    initial: 'syncing',
    terminal: ['corrected'],
    has: [
      ['syncing', 'dilated', 'GR35', 'proof input.dilation_ns > input.correction_threshold_ns'],
      ['dilated', 'syncing', 'GR35'],
      ['dilated', 'corrected', 'KO42', 'input.correction_applied == true'],
    ],
  },
  {
    id: 'traffic-entropy-anomaly',
    category: 'network-and-comms',
    initial: 'nominal',
    terminal: ['cleared'],
    has: [
      ['nominal', 'anomalous', 'CS47', 'input.entropy_bits < input.entropy_floor_bits'],
      ['anomalous', 'nominal', 'CS47'],
      ['anomalous', 'flagged', 'CS47', 'input.sustained_windows > input.flag_windows'],
      ['flagged', 'cleared', 'KO42', 'input.analyst_ack == true'],
    ],
  },
  {
    id: 'cavitation-onset-guard',
    category: 'fluid-dynamics',
    initial: 'nominal',
    terminal: ['throttled'],
    has: [
      ['nominal', 'cavitating', 'FL1+FL2', 'proof input.local_pressure_kpa <= input.vapour_pressure_kpa'],
      ['cavitating', 'nominal', 'FL1+FL2'],
      ['cavitating', 'throttled', 'KO42', 'input.flow_reduced == true'],
    ],
  },
  {
    id: 'device-lifecycle',
    category: 'operations',
    initial: 'registered',
    terminal: ['retired'],
    has: [
      ['registered', 'active', 'KO42', 'input.activated == true'],
      ['active', 'maintenance', 'TM1', 'input.ticks_since_service > input.service_interval_ticks'],
      ['maintenance', 'active', 'KO42', 'input.service_done == true'],
      ['active', 'retired', 'KO42', 'input.retired == true'],
    ],
  },
  {
    id: 'carbon-budget-tracker',
    category: 'climate-science',
    initial: 'on_track',
    terminal: ['reconciled'],
    has: [
      ['on_track', 'over_budget', 'CLIM_RADIATIVE_FORCING', 'proof input.cumulative_tco2 > input.budget_tco2'],
      ['over_budget', 'on_track', 'CLIM_ENERGY_BALANCE'],
      ['over_budget', 'reconciled', 'KO42', 'proof input.offsets_verified == true'],
    ],
  },
];

/** One transition described as text: operators, proof, condition, trigger and emits. */
function describeTransition(tr: CuratedTemplate['definition']['transitions'][number]): string {
  const t = tr.trigger;
  const trigger = !t
    ? ''
    : t.kind === 'every'
      ? `every ${t.every_ticks}`
      : t.kind === 'cron'
        ? `cron ${t.cron}`
        : t.kind === 'one_shot'
          ? `at_unix ${t.at_unix}`
          : t.kind === 'on_aggregate'
            ? `${t.aggregate!.fn}${t.aggregate!.field ? ` ${t.aggregate!.field}` : ''} ${t.op} ${t.threshold} over ${t.within_ticks} on ${t.event}`
            : `on ${t.event}`;
  const emits = (tr.post_actions ?? []).filter((a) => a.type === 'emit').map((a) => `emit ${a.event}`);
  return [tr.proof_required ? 'proof' : '', tr.condition ?? '', trigger, ...emits].filter(Boolean).join(' ');
}

describe('curated templates named by the reference', () => {
  it.each(FACTS)('$id has the states, transitions, triggers and events the reference gives', ({ id, category, initial, terminal, has }) => {
    const t = byId(id);
    expect(t, id).toBeDefined();
    expect(t.category).toBe(category);
    const states = t.definition.states;
    expect(Object.keys(states).filter((s) => states[s]!.initial)).toEqual([initial]);
    expect(
      Object.keys(states)
        .filter((s) => states[s]!.terminal)
        .sort(),
    ).toEqual([...terminal].sort());
    for (const [from, to, operator, what] of has) {
      const found = t.definition.transitions.filter((tr) => tr.from === from && tr.to === to && operatorsOf(tr).join('+') === operator);
      expect(found.length, `${id}: ${from} → ${to} ${operator}`).toBeGreaterThan(0);
      if (what)
        expect(
          found.map(describeTransition).some((d) => d.includes(what)),
          `${id}: ${from} → ${to} "${what}" in ${found.map(describeTransition).join(' | ')}`,
        ).toBe(true);
    }
  });
});
