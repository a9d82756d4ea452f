import { errors } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import { pageOf } from '../../lib/cursor.js';
import { digestOf } from '../../lib/hash.js';
import { resourcePath } from '../../lib/paths.js';
import { loadMathEngine, type MathEngine } from './math-engine.js';
import { evaluateOperator } from './operator-eval.js';
import { createOperatorSearch } from './operator-search.js';
import type { OperatorDef, OperatorInput, OperatorResult } from './operator.types.js';
import { SUBSTRATE_ID } from './registry-constants.js';
import { loadRegistry } from './registry-load.js';
import { SUBSTRATE_FORMULA, substrateAt, type ClockPoint } from './substrate.js';

export interface OperatorSummary {
  id: string;
  name: string;
  category: string;
  formula: string;
  tier: string;
}

/** An operator as the API shows it: bounds as null when absent, and the example inputs as one object. */
export type OperatorView = Omit<OperatorDef, 'inputs'> & {
  inputs: Array<Omit<OperatorInput, 'min' | 'max'> & { min: number | null; max: number | null }>;
  example_inputs: Record<string, number>;
};

/** The operator registry: lookups, search and evaluation, for the API and for other areas. */
export interface OperatorsService {
  /** The operator with this id (any case), or undefined. */
  get(id: string): OperatorDef | undefined;
  exists(id: string): boolean;
  /**
   * Evaluates one operator on inputs in its declared units (extra keys are ignored). KO42 needs no
   * input: it evaluates the clock modulation at `at` (default: now). Throws VALIDATION_FAILED for a
   * missing input, UNPROCESSABLE for an input out of bounds or a non-finite result, NOT_FOUND for an
   * unknown id.
   */
  evaluate(id: string, inputs: Readonly<Record<string, unknown>>, opts?: { at?: ClockPoint }): Promise<OperatorResult>;
  list(query: { q?: string; category?: string; id?: string; limit: number; cursor?: string }): {
    ok: true;
    total: number;
    operators: OperatorSummary[];
    next_cursor: string | null;
  };
  categories(): { ok: true; total: number; categories: Array<{ category: string; name: string; group: string; count: number }> };
  /** The operator as the API shows it; NOT_FOUND when absent. */
  describe(id: string): { ok: true; operator: OperatorView };
  /** SHA-256 of the canonical JSON of every loaded data file, in category order. */
  registryVersion(): string;
  /** The mathjs engine (imported on first call). */
  engine(): Promise<MathEngine>;
  /**
   * Adds an operator at runtime (a promoted community operator): it is found, searched, listed in its
   * category (a new one is added when needed) and evaluated like the loaded ones, and the registry
   * version changes. The caller persists it and registers it again at every start. CONFLICT when the id
   * is taken.
   */
  register(op: OperatorDef): void;
  /** How many operators loaded, how long it took, and what was skipped. */
  readonly stats: { count: number; loadMs: number; problems: readonly string[] };
}

export interface OperatorsDeps {
  clock: Clock;
  /** Directory of the data files; default `resources/operators`. */
  dir?: string;
}

export function createOperatorsService(deps: OperatorsDeps): OperatorsService {
  const registry = loadRegistry(deps.dir ?? resourcePath('operators'));
  let search = createOperatorSearch(registry.operators);
  const categoryKeys = new Set(registry.categories.map((c) => c.category));
  let version: string | undefined;
  const registered: OperatorDef[] = [];

  const get = (id: string) => registry.byId.get(id) ?? registry.byId.get(id.toUpperCase());
  const mustGet = (id: string) => {
    const op = get(id);
    if (!op) throw errors.notFound(`No operator "${id}"; search them with GET /api/operators?q=...`, { id });
    return op;
  };
  const now = (): ClockPoint => ({ tick: deps.clock.tick(), phase: deps.clock.phase() });

  return {
    get,
    exists: (id) => get(id) !== undefined || id.toUpperCase() === SUBSTRATE_ID,
    async evaluate(id, inputs, opts) {
      if (id.toUpperCase() === SUBSTRATE_ID) {
        const { t, value } = substrateAt(opts?.at ?? now());
        const formula = get(SUBSTRATE_ID)?.formula ?? SUBSTRATE_FORMULA;
        return { operator: SUBSTRATE_ID, value, unit: '', equation: `${formula}; t = ${t} s → R = ${value}`, inputs: { t }, cross_check: 0 };
      }
      const op = mustGet(id);
      return evaluateOperator(await loadMathEngine(), op, inputs);
    },
    list({ q, category, id, limit, cursor }) {
      if (category !== undefined && !categoryKeys.has(category)) {
        throw errors.notFound(`No operator category "${category}"; list them with GET /api/operators/categories`, { category });
      }
      const ids = id
        ?.split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      const matches = search({ q, category, ids });
      const { page, next_cursor } = pageOf(matches, limit, cursor);
      return { ok: true, total: matches.length, operators: page.map(summaryOf), next_cursor };
    },
    categories: () => ({
      ok: true,
      total: registry.operators.length,
      categories: registry.categories.map((c) => ({ category: c.category, name: c.title, group: c.group, count: c.count })),
    }),
    describe(id) {
      const op = mustGet(id);
      const inputs = op.inputs.map((i) => ({ ...i, min: i.min ?? null, max: i.max ?? null }));
      return { ok: true, operator: { ...op, inputs, example_inputs: Object.fromEntries(op.inputs.map((i) => [i.name, i.example])) } };
    },
    registryVersion: () => (version ??= digestOf(registered.length === 0 ? registry.files : { files: registry.files, registered })),
    register(op) {
      if (get(op.id) || op.id.toUpperCase() === SUBSTRATE_ID) throw errors.conflict(`Operator id "${op.id}" is already in the registry`, { id: op.id });
      registry.byId.set(op.id, op);
      registry.operators.push(op);
      registered.push(op);
      const category = registry.categories.find((c) => c.category === op.category);
      if (category) category.count += 1;
      else {
        registry.categories.push({ category: op.category, title: op.category, group: 'community', count: 1 });
        registry.categories.sort((a, b) => (a.category < b.category ? -1 : a.category > b.category ? 1 : 0));
        categoryKeys.add(op.category);
      }
      search = createOperatorSearch(registry.operators);
      version = undefined;
    },
    engine: loadMathEngine,
    stats: { count: registry.operators.length, loadMs: registry.loadMs, problems: registry.problems },
  };
}

function summaryOf(op: OperatorDef): OperatorSummary {
  return { id: op.id, name: op.name, category: op.category, formula: op.formula, tier: op.tier };
}
