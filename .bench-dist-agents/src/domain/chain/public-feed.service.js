import { pageOf } from '../../lib/cursor.js';
import { chainStream, MACHINES } from './machine.js';
import { createRecentRing } from './recent-ring.js';
export function publicView(view) {
    const { owner_uid, has_password, share_enabled, ...rest } = view;
    return rest;
}
export function createPublicFeedService(deps) {
    const { store, clock, bus, machines } = deps;
    const publicMachines = async () => store.docs.list(MACHINES, (m) => m.is_public);
    const isPublic = async (slug) => (await store.docs.get(MACHINES, slug))?.is_public === true;
    const ring = createRecentRing({ store, publicMachines });
    let cache = new Map();
    bus.on('audit.appended', ({ slug, isPublic: pub, row }) => {
        const chainRow = row;
        // A visibility change must never leave a now-private machine in a cached answer.
        if (chainRow.type === 'machine.settings_changed') {
            cache = new Map();
            if (pub)
                ring.backfill(slug);
        }
        if (pub)
            ring.push(slug, chainRow);
    });
    async function cached(key, compute) {
        const tick = clock.tick();
        const hit = cache.get(key);
        if (hit && hit.tick === tick)
            return hit.value;
        const value = await compute();
        cache.set(key, { tick, value });
        return value;
    }
    return {
        async listPublic(page) {
            const all = await publicMachines();
            const { page: slice, next_cursor } = pageOf(all, page.limit ?? 100, page.cursor);
            const views = await Promise.all(slice.map(async (m) => publicView(await machines.view(m))));
            return { count: all.length, machines: views, next_cursor };
        },
        active: (windowTicks, limit) => cached(`active|${windowTicks}|${limit}`, async () => {
            const since = Math.max(0, clock.tick() - windowTicks + 1);
            const counted = [];
            for (const m of await publicMachines()) {
                const stream = chainStream(m.slug);
                const head = await store.logs.head(stream);
                if (!head || head.tick < since)
                    continue;
                const count = await store.logs.count(stream);
                const [first] = await store.logs.read(stream, { fromTick: since, limit: 1 });
                const n = first ? count - first.seq : 0;
                if (n > 0)
                    counted.push({ slug: m.slug, display_name: m.display_name, transition_count: n, last_tick: head.tick });
            }
            counted.sort((a, b) => b.transition_count - a.transition_count || b.last_tick - a.last_tick || a.slug.localeCompare(b.slug));
            return { since_tick: since, machines: counted.slice(0, limit) };
        }),
        async newest(limit) {
            const all = await publicMachines();
            all.sort((a, b) => b.genesis_tick - a.genesis_tick || b.created_at.localeCompare(a.created_at));
            return Promise.all(all.slice(0, limit).map(async (m) => publicView(await machines.view(m))));
        },
        recent: (limit, type) => cached(`recent|${limit}|${type ?? ''}`, async () => {
            const tick = clock.tick();
            const visible = new Map();
            const rows = [];
            for (const entry of await ring.newestFirst()) {
                if (type !== undefined && entry.row.type !== type)
                    continue;
                let pub = visible.get(entry.slug);
                if (pub === undefined)
                    visible.set(entry.slug, (pub = await isPublic(entry.slug)));
                if (!pub)
                    continue;
                rows.push({ ...entry.row, slug: entry.slug });
                if (rows.length >= limit)
                    break;
            }
            return { tick, rows };
        }),
        fleet: () => cached('fleet', async () => {
            const tick = clock.tick();
            const all = await store.docs.list(MACHINES);
            const byStatus = { active: 0, paused: 0, archived: 0 };
            let rows = 0;
            let recent = 0;
            for (const m of all) {
                byStatus[m.status]++;
                const stream = chainStream(m.slug);
                rows += await store.logs.count(stream);
                const head = await store.logs.head(stream);
                if (head && head.tick >= tick - 59)
                    recent++;
            }
            return {
                tick,
                machines_total: all.length,
                machines_public: all.filter((m) => m.is_public).length,
                by_status: byStatus,
                rows_total: rows,
                active_last_60_ticks: recent,
            };
        }),
    };
}
//# sourceMappingURL=public-feed.service.js.map