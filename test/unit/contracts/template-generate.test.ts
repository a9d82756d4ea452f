import { describe, expect, it } from 'vitest';
import { validateDefinition } from '../../../src/domain/contracts/definition-validate.js';
import { createOperatorsService } from '../../../src/domain/operators/operators.service.js';
import { cronOfInterval } from '../../../src/domain/templates/param-fill.js';
import { extractPhrases } from '../../../src/domain/templates/phrase-extract.js';
import { createTemplatesService } from '../../../src/domain/templates/templates.service.js';
import { createFakeClock } from '../../../src/lib/clock.js';

const operators = createOperatorsService({ clock: createFakeClock(1_700_000_000_000) });
const templates = createTemplatesService({ operators });
const valid = (definition: unknown) => validateDefinition(structuredClone(definition), { operatorExists: (id) => operators.exists(id) });

describe('phrase extraction', () => {
  it('reads calendar phrases as 5-field UTC cron expressions', () => {
    const cron = (text: string) => extractPhrases(text).cron?.expression;
    expect(cron('every Monday at 9')).toBe('0 9 * * 1');
    expect(cron('on mondays and thursdays at 14:30')).toBe('30 14 * * 1,4');
    expect(cron('weekdays at 8:15am')).toBe('15 8 * * 1-5');
    expect(cron('every day at 3pm')).toBe('0 15 * * *');
    expect(cron('daily at midnight')).toBe('0 0 * * *');
    expect(cron('on the 15th of every month at 08:00')).toBe('0 8 15 * *');
    expect(cron('monthly')).toBe('0 0 1 * *');
    expect(cron('run it on "*/10 * * * 1-5"')).toBe('*/10 * * * 1-5');
    expect(cron('threshold monitor for the sun sensor')).toBeUndefined();
  });

  it('reads intervals and windows as ticks of 0.777 s', () => {
    expect(extractPhrases('every 5 minutes').interval).toMatchObject({ seconds: 300, ticks: 386 });
    expect(extractPhrases('every 60 ticks').interval?.ticks).toBe(60);
    expect(extractPhrases('hourly').interval?.seconds).toBe(3600);
    expect(extractPhrases('average over the last 2 minutes').window?.ticks).toBe(154);
    expect(extractPhrases('100 requests per minute').window?.ticks).toBe(77);
    expect(extractPhrases('the 60-tick average').window?.ticks).toBe(60);
  });

  it('reads numbers with units, bare numbers with their context, deadlines and event names', () => {
    const p = extractPhrases('alarm above 2.5 kN after 3 approvals by 2030-01-01; on `sensor_reading` events emit `overload` and sum `kwh`');
    expect(p.numbers.map((n) => [n.value, n.unit])).toEqual([
      [2.5, 'kN'],
      [3, null],
    ]);
    expect(p.numbers[1]!.after[0]).toBe('approvals');
    expect(p.deadline?.unix).toBe(1893456000);
    expect(p.listens).toEqual(['sensor_reading']);
    expect(p.emits).toEqual(['overload']);
    expect(p.fields).toEqual(['kwh']);
    expect(extractPhrases('a budget of 50,000 tonnes of CO2').numbers[0]).toMatchObject({ value: 50000, unit: 'tCO2' });
  });

  it('turns even intervals into cron expressions and leaves odd ones alone', () => {
    expect(cronOfInterval(300)).toBe('*/5 * * * *');
    expect(cronOfInterval(7200)).toBe('0 */2 * * *');
    expect(cronOfInterval(86400)).toBe('0 0 * * *');
    expect(cronOfInterval(420)).toBeUndefined();
  });
});

describe('generate', () => {
  const cases: Array<[description: string, template: string, params: Record<string, unknown>]> = [
    ['alert when the force on the crane exceeds 2 kN', 'force-threshold-alarm', { force_limit_n: 2000 }],
    ['send a heartbeat every 5 minutes', 'scheduled-compute', { every_ticks: 386 }],
    ['every Monday at 9 post a digest', 'daily-digest', { digest_cron: '0 9 * * 1' }],
    ['alert when the 60-tick average reading exceeds 80', 'threshold-monitor', { window_ticks: 60, breach_threshold: 80, clear_threshold: 72 }],
    ['require 5 approvals within 2 hours, reject on veto', 'approval-workflow', { window_ticks: 9266, required_approvals: 5 }],
    ['release escrow funds when 3 parties sign, expire on 2030-01-01', 'timelock-release', { required_signatures: 3, deadline_unix: 1893456000 }],
    ['limit clients to 200 requests per minute', 'rate-limiter', { max_requests: 200, window_ticks: 77 }],
    ['bill customers on the 15th of every month at 08:00', 'subscription-billing', { billing_cron: '0 8 15 * *' }],
    ['warn when CO2 goes above 600 ppm and alarm at 800 ppm', 'co2-concentration-watch', { C_watch: 600, C_alert: 800 }],
    ['watch orbit perigee decay below 250 km, plan deorbit below 180 km', 'orbital-decay-monitor', { perigee_km_watch: 250, perigee_km_alert: 180 }],
    ['track a carbon budget of 50,000 tonnes of CO2', 'carbon-budget-tracker', { budget_tco2: 50000 }],
    ['flag leaking methane when the average ch4 is above 3000 ppb over 10 minutes', 'methane-leak-detector', { ch4_alert_ppb: 3000, window_ticks: 772 }],
    ['settle the payment after 12 confirmations', 'confirmation-depth-gate', { z_required: 12 }],
    ['escalate incidents nobody acknowledges within 10 minutes', 'incident-escalation', { escalate_after_ticks: 772 }],
    ['rotate signing keys every day at 3am', 'key-rotation-scheduler', { rotation_cron: '0 3 * * *' }],
  ];

  it.each(cases)('"%s" starts from %s and fills %j', (description, template, params) => {
    const draft = templates.generate(description);
    expect(draft.template_id).toBe(template);
    expect(draft.params).toMatchObject(params);
    expect(() => valid(draft.definition)).not.toThrow();
    expect(draft.notes[0]).toContain(`"${template}"`);
  });

  it('puts the filled values into the definition it returns', () => {
    const draft = templates.generate('alert when the force on the crane exceeds 2 kN');
    expect(draft.definition.defaults).toMatchObject({ force_limit_n: 2000 });
    const heartbeat = templates.generate('send a heartbeat every 90 seconds');
    expect(heartbeat.definition.transitions[0]!.trigger).toMatchObject({ kind: 'every', every_ticks: 116 });
  });

  it('turns an interval template into a cron one when the description gives a calendar schedule', () => {
    const draft = templates.generate('read the price oracle feed on weekdays at 9:30');
    expect(draft.template_id).toBe('oracle-feed');
    expect(draft.definition.transitions[0]!.trigger).toEqual({ kind: 'cron', cron: '30 9 * * 1-5' });
    expect(() => valid(draft.definition)).not.toThrow();
  });

  it('renames the events and aggregated field the description names', () => {
    const draft = templates.generate('telemetry rollup: sum `energy_kwh` of `meter_reading` events over 1 hour and emit `usage_spike` above 500');
    expect(draft.template_id).toBe('telemetry-rollup');
    const first = draft.definition.transitions[0]!;
    expect(first.trigger).toMatchObject({ event: 'meter_reading', aggregate: { fn: 'sum', field: 'energy_kwh' }, threshold: 500, within_ticks: 4633 });
    expect(first.post_actions).toEqual([{ type: 'emit', event: 'usage_spike' }]);
  });

  it('builds a generic watch from the operator registry when no template matches, and says so', () => {
    const draft = templates.generate('monitor the widget frobnication level of 40 and escalate at 55');
    expect(draft.template_id).toBeNull();
    expect(Object.keys(draft.definition.states)).toEqual(['nominal', 'watch', 'alert', 'acknowledged']);
    expect(draft.definition.defaults).toEqual({ value_watch: 40, value_alert: 55 });
    expect(draft.notes[0]).toMatch(/No template matched/);
    expect(() => valid(draft.definition)).not.toThrow();
  });

  it('refuses a description without words', () => {
    expect(() => templates.generate('!!! 42 ???')).toThrow(/Describe what the contract should do/);
  });

  it('gives a valid draft for every template described by its own title and description', () => {
    for (const t of templates.all()) {
      const draft = templates.generate(`${t.title}: ${t.description}`);
      expect(draft.template_id, t.id).toBe(t.id);
      expect(() => valid(draft.definition), t.id).not.toThrow();
    }
  });
});
