import { chainStream } from './machine.js';
const CAPACITY = 2000;
/** Rows read per public machine when rebuilding. */
const PER_MACHINE = 100;
const order = (a, b) => a.row.tick - b.row.tick || a.row.created_at.localeCompare(b.row.created_at) || a.slug.localeCompare(b.slug) || a.row.seq - b.row.seq;
export function createRecentRing(deps) {
    const capacity = deps.capacity ?? CAPACITY;
    let entries = [];
    let keys = new Set();
    let building;
    const keyOf = (e) => `${e.slug}:${e.row.seq}`;
    function trim() {
        if (entries.length <= capacity)
            return;
        for (const dropped of entries.slice(0, entries.length - capacity))
            keys.delete(keyOf(dropped));
        entries = entries.slice(entries.length - capacity);
    }
    /** Merges rows read from the logs with what the bus delivered meanwhile. */
    function merge(found) {
        const all = [...entries];
        for (const e of found)
            if (!keys.has(keyOf(e)))
                all.push(e);
        all.sort(order);
        entries = all.slice(Math.max(0, all.length - capacity));
        keys = new Set(entries.map(keyOf));
    }
    async function newestOf(slug) {
        const rows = await deps.store.logs.read(chainStream(slug), { reverse: true, limit: Math.min(PER_MACHINE, capacity) });
        return rows.map((row) => ({ slug, row }));
    }
    return {
        push(slug, row) {
            const entry = { slug, row };
            if (keys.has(keyOf(entry)))
                return;
            keys.add(keyOf(entry));
            entries.push(entry);
            // Trimming in halves keeps pushes O(1) amortized.
            if (entries.length > capacity * 1.5)
                trim();
        },
        backfill(slug) {
            newestOf(slug).then(merge, () => undefined);
        },
        async newestFirst() {
            building ??= (async () => {
                const found = [];
                for (const m of await deps.publicMachines())
                    found.push(...(await newestOf(m.slug)));
                merge(found);
            })().catch((err) => {
                building = undefined;
                throw err;
            });
            await building;
            trim();
            return entries.slice().reverse();
        },
    };
}
//# sourceMappingURL=recent-ring.js.map