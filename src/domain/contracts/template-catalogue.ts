import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { errors } from '../../errors.js';
import { resourcePath } from '../../lib/paths.js';
import { conditionNames } from './condition.js';
import type { Definition } from './contract.types.js';

/**
 * A curated template, one file `resources/templates/<id>.json`:
 * `{ id, title, category, description, uses: string[], params?: { <name>: { description, paths? } }, definition }`.
 * A param with `paths` (e.g. `["transitions[0].trigger.every_ticks"]`) sets those members of the
 * definition when deploying; see `applyParams` for params without paths.
 */
export interface Template {
  id: string;
  title: string;
  category: string;
  description: string;
  uses: string[];
  params?: Record<string, { description?: string; paths?: string[]; default?: unknown }>;
  definition: Definition;
}

export interface TemplateCatalogue {
  get(id: string): Template | undefined;
  all(): Template[];
}

/** Loads the template files once, on first use; a missing folder is an empty catalogue. */
export function createTemplateCatalogue(dir: string = resourcePath('templates')): TemplateCatalogue {
  let loaded: Map<string, Template> | undefined;
  const load = () => {
    if (loaded) return loaded;
    loaded = new Map();
    if (!existsSync(dir)) return loaded;
    for (const file of readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .sort()) {
      let template: Template | undefined;
      try {
        template = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as Template;
      } catch {
        // A broken file is left out rather than failing every deploy; the templates test reports it.
        continue;
      }
      if (template && typeof template.id === 'string' && template.definition) loaded.set(template.id, template);
    }
    return loaded;
  };
  return { get: (id) => load().get(id), all: () => [...load().values()] };
}

const TRIGGER_PARAMS = new Set(['every_ticks', 'cron', 'at_tick', 'at_unix', 'within_ticks', 'threshold']);

/**
 * A template's definition with deploy parameters applied, as a fresh copy. A parameter is, in order:
 * one the template declares (its `paths` are set); a trigger setting (`every_ticks`, `cron`, `at_tick`,
 * `at_unix`, `within_ticks`, `threshold`) set on every trigger that has it; or an input name a
 * condition reads, stored in `definition.defaults`. Anything else is refused, so a misspelt parameter
 * never deploys silently.
 */
export function applyParams(template: Template, params: Record<string, unknown>): Definition {
  const definition = structuredClone(template.definition);
  const conditionInputs = new Set(
    definition.transitions.flatMap((t) =>
      [t.condition, ...Object.values(t.operator_inputs ?? {})].flatMap((e) => (typeof e === 'string' ? conditionNames(e) : [])),
    ),
  );
  for (const [name, value] of Object.entries(params)) {
    const declared = template.params?.[name];
    if (declared?.paths?.length) {
      for (const p of declared.paths) setPath(definition, p, value, name);
      continue;
    }
    const triggers = definition.transitions.map((t) => t.trigger).filter((t) => t !== undefined && name in t);
    if (TRIGGER_PARAMS.has(name) && triggers.length > 0) {
      for (const trigger of triggers) trigger![name] = value;
    } else if (declared || conditionInputs.has(name)) {
      definition.defaults = { ...(definition.defaults ?? {}), [name]: value };
    } else {
      throw errors.validation(`Unknown parameter "${name}" for template "${template.id}"`, {
        code: 'unknown_param',
        issues: [{ path: `params.${name}`, message: `the template takes ${describeParams(template, conditionInputs)}` }],
      });
    }
  }
  return definition;
}

function describeParams(template: Template, inputs: Set<string>): string {
  const names = new Set([...Object.keys(template.params ?? {}), ...inputs]);
  for (const t of template.definition.transitions) for (const key of Object.keys(t.trigger ?? {})) if (TRIGGER_PARAMS.has(key)) names.add(key);
  return names.size > 0 ? [...names].sort().join(', ') : 'no parameters';
}

/** Sets `transitions[0].trigger.every_ticks`-style paths. */
function setPath(target: object, dotted: string, value: unknown, name: string): void {
  const keys = dotted
    .replace(/\[(\d+)\]/g, '.$1')
    .split('.')
    .filter(Boolean);
  let node: Record<string, unknown> = target as Record<string, unknown>;
  for (const key of keys.slice(0, -1)) {
    const next = node[key];
    if (typeof next !== 'object' || next === null) throw errors.validation(`Template parameter "${name}" points at a missing member ${dotted}`);
    node = next as Record<string, unknown>;
  }
  node[keys[keys.length - 1]!] = value;
}
