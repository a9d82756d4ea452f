import { errors } from '../../errors.js';
import { pageOf } from '../../lib/cursor.js';
import { resourcePath } from '../../lib/paths.js';
import type { TransitionSpec } from '../contracts/contract.types.js';
import { loadTemplates, type LoadedTemplates } from './template-loader.js';
import type { CuratedTemplate, TemplateCategory, Walkthrough } from './template.types.js';

/** A template as lists show it. */
export interface TemplateSummary {
  id: string;
  title: string;
  category: string;
  category_name: string;
  description: string;
  definition_name: string;
  states_count: number;
  transitions_count: number;
  operators: string[];
  trigger_kinds: string[];
}

/** A template with everything needed to deploy it. */
export interface TemplateDetail extends TemplateSummary {
  uses: string[];
  keywords: string[];
  params: Array<{ name: string; description: string; default: unknown; unit: string | null; sets: string[] }>;
  events: { listens: string[]; emits: string[] };
  example: Walkthrough;
  definition: CuratedTemplate['definition'];
}

export interface TemplateCatalogueService {
  list(query: { category?: string | undefined; q?: string | undefined; limit: number; cursor?: string | undefined }): {
    total: number;
    templates: TemplateSummary[];
    next_cursor: string | null;
  };
  categories(): Array<{ id: string; name: string; description: string; count: number }>;
  /** The template with its full definition (a copy); NOT_FOUND naming the list call when absent. */
  get(id: string): TemplateDetail;
  /** Every template, in catalogue order (shared objects: do not mutate). */
  all(): readonly CuratedTemplate[];
  /** Files left out of the catalogue and why. */
  problems(): readonly string[];
}

/** Operator ids a transition runs, in order. */
export function operatorsOf(t: TransitionSpec): string[] {
  return t.operators ?? (t.operator !== undefined ? [t.operator] : []);
}

/** Event names a template's triggers listen to and its post-actions emit. */
export function eventsOf(template: CuratedTemplate): { listens: string[]; emits: string[] } {
  const listens = new Set<string>();
  const emits = new Set<string>();
  for (const t of template.definition.transitions) {
    if (t.trigger?.event) listens.add(t.trigger.event);
    for (const e of t.trigger?.events ?? []) listens.add(e);
    for (const a of t.post_actions ?? []) if (a.type === 'emit' && a.event) emits.add(a.event);
  }
  return { listens: [...listens], emits: [...emits] };
}

/**
 * The curated template catalogue, read from `resources/templates/` on first use. Lists follow the
 * order of `categories.json`; text search matches every word of `q` against a template's id, title,
 * description, uses, keywords, states, events and operators.
 */
export function createTemplateCatalogue(deps: { dir?: string } = {}): TemplateCatalogueService {
  let loaded: LoadedTemplates | undefined;
  const load = () => (loaded ??= loadTemplates(deps.dir ?? resourcePath('templates')));
  const haystacks = new WeakMap<CuratedTemplate, string>();

  const categoryOf = (id: string): TemplateCategory | undefined => load().categories.find((c) => c.id === id);

  function summary(t: CuratedTemplate): TemplateSummary {
    const transitions = t.definition.transitions;
    return {
      id: t.id,
      title: t.title,
      category: t.category,
      category_name: categoryOf(t.category)?.name ?? t.category,
      description: t.description,
      definition_name: t.definition.name,
      states_count: Object.keys(t.definition.states).length,
      transitions_count: transitions.length,
      operators: [...new Set(transitions.flatMap(operatorsOf))],
      trigger_kinds: [...new Set(transitions.flatMap((tr) => (tr.trigger ? [tr.trigger.kind] : [])))],
    };
  }

  function haystack(t: CuratedTemplate): string {
    let text = haystacks.get(t);
    if (text === undefined) {
      const { listens, emits } = eventsOf(t);
      text = [t.id, t.title, t.description, ...t.uses, ...t.keywords, ...Object.keys(t.definition.states), ...listens, ...emits, ...summary(t).operators]
        .join(' ')
        .toLowerCase();
      haystacks.set(t, text);
    }
    return text;
  }

  return {
    list({ category, q, limit, cursor }) {
      if (category !== undefined && !categoryOf(category)) {
        throw errors.validation(
          `Unknown template category "${category}"; categories: ${load()
            .categories.map((c) => c.id)
            .join(', ')}`,
          {
            issues: [{ path: 'category', message: 'use an id from GET /api/contracts/templates/categories' }],
          },
        );
      }
      const words = (q ?? '').toLowerCase().split(/\s+/).filter(Boolean);
      const matching = load().templates.filter((t) => (category === undefined || t.category === category) && words.every((w) => haystack(t).includes(w)));
      const { page, next_cursor } = pageOf(matching, limit, cursor);
      return { total: matching.length, templates: page.map(summary), next_cursor };
    },
    categories() {
      const { categories, templates } = load();
      return categories.map((c) => ({ id: c.id, name: c.name, description: c.description, count: templates.filter((t) => t.category === c.id).length }));
    },
    get(id) {
      const t = load().templates.find((x) => x.id === id);
      if (!t) throw errors.notFound(`No template "${id}"; list them with GET /api/contracts/templates`, { template_id: id });
      return {
        ...summary(t),
        uses: [...t.uses],
        keywords: [...t.keywords],
        params: Object.entries(t.params).map(([name, p]) => ({
          name,
          description: p.description,
          default: p.default,
          unit: p.unit ?? null,
          sets: p.paths ?? [`defaults.${name}`],
        })),
        events: eventsOf(t),
        example: structuredClone(t.walkthrough),
        definition: structuredClone(t.definition),
      };
    },
    all: () => load().templates,
    problems: () => load().problems,
  };
}
