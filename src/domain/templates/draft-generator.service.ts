import { errors } from '../../errors.js';
import type { Definition, TriggerSpec } from '../contracts/contract.types.js';
import { validateDefinition } from '../contracts/definition-validate.js';
import { applyParams } from '../contracts/template-catalogue.js';
import type { OperatorsService } from '../operators/operators.service.js';
import { fillParams } from './param-fill.js';
import { extractPhrases, type Phrases } from './phrase-extract.js';
import { eventsOf, type TemplateCatalogueService } from './template-catalogue.service.js';
import { createTemplateMatcher, stems, type TemplateMatcher } from './template-match.js';
import type { CuratedTemplate } from './template.types.js';

/** A draft definition and how it was made. */
export interface Draft {
  definition: Definition;
  template_id: string | null;
  template_title: string | null;
  /** Match score of the template (0 when built from scratch). */
  score: number;
  /** Template parameters filled from the description, with their values. */
  params: Record<string, unknown>;
  notes: string[];
  /** The next best templates. */
  alternatives: Array<{ template_id: string; title: string; score: number }>;
}

export interface DraftGenerator {
  /** Drafts a definition that passes the contract validator; writes nothing. */
  generate(description: string): Draft;
}

export interface DraftGeneratorDeps {
  catalogue: TemplateCatalogueService;
  operators: Pick<OperatorsService, 'exists' | 'get' | 'list'>;
}

/** Below this score the description is too far from every template, and a generic watch is built. */
export const MIN_SCORE = 12;

/**
 * Template matching and parameter extraction, no external model: the description's words rank the
 * templates (see `createTemplateMatcher`), then its numbers with units, intervals, calendar phrases,
 * windows, deadlines and event names fill the best template's parameters (see `fillParams`). The
 * draft always passes `validateDefinition`; when an adaptation would break it, the template's own
 * values are kept and a note says so.
 */
export function createDraftGenerator(deps: DraftGeneratorDeps): DraftGenerator {
  let matcher: TemplateMatcher | undefined;
  const operatorExists = (id: string) => deps.operators.exists(id);
  const operatorInputs = (id: string) => deps.operators.get(id)?.inputs.map((i) => i.name);

  return {
    generate(description) {
      const text = description.trim();
      if (stems(text).length === 0)
        throw errors.validation('Describe what the contract should do, e.g. "alert when the average reading over 5 minutes exceeds 100"');
      matcher ??= createTemplateMatcher(deps.catalogue.all(), (id) => deps.operators.get(id)?.name);
      const phrases = extractPhrases(text);
      const ranked = matcher.rank(text, (t) => boost(t, phrases));
      const best = ranked[0];
      const alternatives = ranked.slice(1, 4).map((m) => ({ template_id: m.template.id, title: m.template.title, score: m.score }));
      if (!best || best.score < MIN_SCORE)
        return {
          ...scratch(text, phrases, deps, best?.template.id, best?.score),
          alternatives: ranked.slice(0, 3).map((m) => ({ template_id: m.template.id, title: m.template.title, score: m.score })),
        };

      const template = best.template;
      const fill = fillParams(template, phrases);
      const notes = [`Started from template "${template.id}" (${template.title}), matched on: ${best.matched.slice(0, 6).join(', ')}.`, ...fill.notes];
      let definition = applyParams(template, fill.params);
      for (const { index, trigger } of fill.retime) definition.transitions[index]!.trigger = trigger;
      renameEvents(template, definition, phrases, notes);
      if (phrases.name) definition.name = phrases.name;
      try {
        definition = validateDefinition(definition, { operatorExists, operatorInputs });
      } catch (err) {
        notes.push(`The adapted draft did not validate (${(err as Error).message}); the template's own values are kept instead.`);
        definition = validateDefinition(structuredClone(template.definition), { operatorExists, operatorInputs });
        return { definition, template_id: template.id, template_title: template.title, score: best.score, params: {}, notes, alternatives };
      }
      notes.push(
        `Review the draft, then deploy it with POST /api/chain/{slug}/contracts {"definition": ...}, or deploy the template itself with POST /api/contracts/templates/${template.id}/deploy and these params.`,
      );
      return { definition, template_id: template.id, template_title: template.title, score: best.score, params: fill.params, notes, alternatives };
    },
  };
}

/** Favours templates whose trigger kinds and events fit what the description asks for. */
function boost(t: CuratedTemplate, p: Phrases): number {
  const kinds = new Set(t.definition.transitions.flatMap((tr) => (tr.trigger ? [tr.trigger.kind] : [])));
  const { listens, emits } = eventsOf(t);
  let b = 0;
  if (p.cron && kinds.has('cron')) b += 2;
  if (p.interval && (kinds.has('every') || kinds.has('recurring'))) b += 2;
  if (p.window && kinds.has('on_aggregate')) b += 1.5;
  if (p.deadline && kinds.has('one_shot')) b += 1.5;
  b += p.listens.filter((e) => listens.includes(e)).length * 2 + p.emits.filter((e) => emits.includes(e)).length * 2;
  return b;
}

/** Renames the template's events and aggregated fields to the ones the description names, in order of appearance. */
function renameEvents(template: CuratedTemplate, definition: Definition, p: Phrases, notes: string[]): void {
  const own = eventsOf(template);
  const reserved = new Set([...Object.keys(template.params), ...Object.keys(template.definition.states), ...Object.keys(template.definition.defaults ?? {})]);
  const plan = (wanted: string[], existing: string[]) => {
    const fresh = wanted.filter((e) => !existing.includes(e) && !reserved.has(e) && !own.listens.includes(e) && !own.emits.includes(e));
    const free = existing.filter((e) => !wanted.includes(e));
    return new Map(fresh.slice(0, free.length).map((e, i) => [free[i]!, e] as const));
  };
  const fields = [...new Set(definition.transitions.flatMap((t) => (t.trigger?.aggregate?.field ? [t.trigger.aggregate.field] : [])))];
  const field = plan(p.fields, fields);
  const listen = plan(p.listens, own.listens);
  const emit = plan(p.emits, own.emits);
  const rename = (map: Map<string, string>, name: string) => map.get(name) ?? name;
  for (const t of definition.transitions) {
    const trigger: TriggerSpec | undefined = t.trigger;
    if (trigger?.event !== undefined) trigger.event = rename(listen, trigger.event);
    if (trigger?.events) trigger.events = trigger.events.map((e) => rename(listen, e));
    if (trigger?.aggregate?.field !== undefined) trigger.aggregate.field = rename(field, trigger.aggregate.field);
    for (const a of t.post_actions ?? []) if (a.type === 'emit' && a.event) a.event = rename(emit, a.event);
  }
  for (const [from, to] of listen) notes.push(`Listens to "${to}" events instead of "${from}".`);
  for (const [from, to] of emit) notes.push(`Emits "${to}" instead of "${from}".`);
  for (const [from, to] of field) notes.push(`Aggregates the "${to}" field instead of "${from}".`);
}

/** A generic four-state watch around the operator the description's words find in the registry. */
function scratch(
  text: string,
  p: Phrases,
  deps: DraftGeneratorDeps,
  nearest: string | undefined,
  nearestScore: number | undefined,
): Omit<Draft, 'alternatives'> {
  const tally = new Map<string, number>();
  for (const word of [...new Set(stems(text))].slice(0, 12)) {
    if (word.length < 4) continue;
    deps.operators.list({ q: word, limit: 5 }).operators.forEach((op, rank) => tally.set(op.id, (tally.get(op.id) ?? 0) + 5 - rank));
  }
  const operator = [...tally.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? 'KO42';
  const values = p.numbers.map((n) => n.value);
  const watch = values[0] ?? 0;
  const alert = values[1] ?? watch;
  const name = `${stems(text).slice(0, 3).join('_') || 'value'}_watch`.replace(/[^a-z0-9_]/g, '');
  const definition = validateDefinition(
    {
      name,
      version: '1.0',
      states: { nominal: { initial: true }, watch: {}, alert: {}, acknowledged: { terminal: true } },
      transitions: [
        { from: 'nominal', to: 'watch', operator, condition: 'input.value > input.value_watch', proof_required: operator !== 'KO42' },
        {
          from: 'watch',
          to: 'alert',
          operator,
          condition: 'input.value > input.value_alert',
          proof_required: operator !== 'KO42',
          post_actions: [{ type: 'emit', event: 'value_alert' }],
        },
        { from: 'watch', to: 'nominal', operator, condition: 'input.value <= input.value_watch', proof_required: operator !== 'KO42' },
        { from: 'alert', to: 'acknowledged', operator: 'KO42', condition: 'input.acknowledged == true', proof_required: false },
      ],
      defaults: { value_watch: watch, value_alert: Math.max(alert, watch) },
      observers: [],
      audit_clock: true,
      tick_rate: 1,
    },
    { operatorExists: (id) => deps.operators.exists(id) },
  );
  const notes = [
    nearest
      ? `No template matched closely (nearest: "${nearest}" at ${nearestScore}); built a generic watch instead.`
      : 'No template matched; built a generic watch instead.',
    `Operator ${operator} was picked from the registry by the description's words${operator === 'KO42' ? ' (none matched, so the substrate operator)' : ''}; check it with GET /api/operators/${operator}.`,
    values.length > 0
      ? `Thresholds value_watch=${watch}, value_alert=${Math.max(alert, watch)} come from the numbers in the description.`
      : 'Set value_watch and value_alert in defaults before deploying.',
    'Drive it with transitions whose input carries "value".',
  ];
  const inputs = operator === 'KO42' ? [] : (deps.operators.get(operator)?.inputs.map((i) => i.name) ?? []);
  if (inputs.length > 0)
    notes.push(
      `${operator} reads ${inputs.join(', ')}: give them in the input, or map them from your names with the transitions' operator_inputs (e.g. {"${inputs[0]}": "input.value"}); otherwise it is recorded as not evaluated.`,
    );
  return { definition, template_id: null, template_title: null, score: 0, params: { value_watch: watch, value_alert: Math.max(alert, watch) }, notes };
}
