import { genesisSeed, stateHashOf } from './hash-chain.js';
import { chainStream } from './machine.js';
const PAGE = 5000;
/** Machines whose summaries stay in memory; the least recently used is dropped beyond this. */
const MAX_CACHED = 256;
function bump(map, key, tick) {
    const seen = map.get(key);
    if (seen) {
        seen.count++;
        seen.last_tick = tick;
    }
    else
        map.set(key, { count: 1, first_tick: tick, last_tick: tick });
}
export function createChainSummaries(store) {
    const cache = new Map();
    const folding = new Map();
    async function fold(machine, summary) {
        const stream = chainStream(machine.slug);
        const total = await store.logs.count(stream);
        while (summary.folded < total) {
            const rows = await store.logs.read(stream, { fromSeq: summary.folded, toSeq: total - 1, limit: PAGE });
            if (rows.length === 0)
                break;
            for (const row of rows) {
                const { state_hash, ...rest } = row;
                const expectedPrev = summary.lastHash ?? genesisSeed(machine.slug, machine.genesis_tick);
                if (row.prev_hash === expectedPrev && stateHashOf(rest) === state_hash)
                    summary.verified++;
                else
                    summary.broken++;
                summary.lastHash = state_hash;
                bump(summary.byType, row.type, row.tick);
                bump(summary.bySource, row.actor_uid ?? '', row.tick);
                summary.lastTick = row.tick;
                summary.folded = row.seq + 1;
            }
        }
        return summary;
    }
    return {
        of(machine) {
            const key = `${machine.slug}|${machine.genesis_tick}`;
            const running = folding.get(key);
            if (running)
                return running;
            const summary = cache.get(key) ?? {
                folded: 0,
                byType: new Map(),
                bySource: new Map(),
                verified: 0,
                broken: 0,
                lastTick: null,
                lastHash: undefined,
            };
            cache.delete(key);
            cache.set(key, summary);
            if (cache.size > MAX_CACHED)
                cache.delete(cache.keys().next().value);
            const work = fold(machine, summary).finally(() => folding.delete(key));
            folding.set(key, work);
            return work;
        },
    };
}
//# sourceMappingURL=chain-summary.js.map