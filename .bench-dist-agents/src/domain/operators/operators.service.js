import { errors } from '../../errors.js';
import { pageOf } from '../../lib/cursor.js';
import { digestOf } from '../../lib/hash.js';
import { resourcePath } from '../../lib/paths.js';
import { loadMathEngine } from './math-engine.js';
import { evaluateOperator } from './operator-eval.js';
import { createOperatorSearch } from './operator-search.js';
import { SUBSTRATE_ID } from './registry-constants.js';
import { loadRegistry } from './registry-load.js';
import { SUBSTRATE_FORMULA, substrateAt } from './substrate.js';
export function createOperatorsService(deps) {
    const registry = loadRegistry(deps.dir ?? resourcePath('operators'));
    const search = createOperatorSearch(registry.operators);
    const categoryKeys = new Set(registry.categories.map((c) => c.category));
    let version;
    const get = (id) => registry.byId.get(id) ?? registry.byId.get(id.toUpperCase());
    const mustGet = (id) => {
        const op = get(id);
        if (!op)
            throw errors.notFound(`No operator "${id}"; search them with GET /api/operators?q=...`, { id });
        return op;
    };
    const now = () => ({ tick: deps.clock.tick(), phase: deps.clock.phase() });
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
            const ids = id?.split(',').map((s) => s.trim()).filter(Boolean);
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
        registryVersion: () => (version ??= digestOf(registry.files)),
        engine: loadMathEngine,
        stats: { count: registry.operators.length, loadMs: registry.loadMs, problems: registry.problems },
    };
}
function summaryOf(op) {
    return { id: op.id, name: op.name, category: op.category, formula: op.formula, tier: op.tier };
}
//# sourceMappingURL=operators.service.js.map