import { readFileSync } from 'node:fs';
import { errors } from '../../errors.js';
import { resourcePath } from '../../lib/paths.js';
import { pageOf } from '../../lib/cursor.js';
/** Serves the CODATA 2018 table from `resources/constants/codata-2018.json`, indexed once at start. */
export function createConstantsService(file = resourcePath('constants', 'codata-2018.json')) {
    const data = JSON.parse(readFileSync(file, 'utf8'));
    const all = data.constants.map((c) => ({
        ...c,
        relative_uncertainty: c.value === 0 ? 0 : Math.abs(c.uncertainty / c.value),
    }));
    const exact = new Map();
    const folded = new Map();
    for (const c of all)
        exact.set(c.key, c);
    for (const c of all)
        for (const a of c.aliases)
            if (!exact.has(a))
                exact.set(a, c);
    for (const c of all)
        if (c.symbol && !exact.has(c.symbol))
            exact.set(c.symbol, c);
    for (const [k, c] of exact)
        if (!folded.has(k.toLowerCase()))
            folded.set(k.toLowerCase(), c);
    const haystack = new Map(all.map((c) => [c, [c.key, c.name, c.symbol ?? '', ...c.aliases].join(' ').toLowerCase()]));
    return {
        async list({ q, limit = 100, cursor }) {
            const needle = q?.trim().toLowerCase();
            const matches = needle ? all.filter((c) => haystack.get(c).includes(needle)) : all;
            const { page, next_cursor } = pageOf(matches, limit, cursor);
            return { ok: true, source: data.source, total: matches.length, constants: page, next_cursor };
        },
        async get(key) {
            const found = exact.get(key) ?? folded.get(key.toLowerCase());
            if (!found) {
                throw errors.notFound(`No constant "${key}"; list them with GET /api/constants?q=...`, { key });
            }
            return { ok: true, source: data.source, constant: found };
        },
    };
}
//# sourceMappingURL=constants.service.js.map