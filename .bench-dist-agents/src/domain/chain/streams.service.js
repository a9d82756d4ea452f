import { chainStream, MACHINES } from './machine.js';
import { createOrderedRelay } from './ordered-relay.js';
/** At most this many missed rows are replayed on resume; older ones are announced by a `replay.skipped` event. */
export const MAX_REPLAY = 10_000;
/** Public rows kept in memory for resuming the aggregate feed. */
export const AGGREGATE_BACKLOG = 4096;
export const ROW_EVENT = 'audit.appended';
export const SKIPPED_EVENT = 'replay.skipped';
export function createStreamsService(deps) {
    const { store, bus, chain } = deps;
    const backlog = [];
    let counter = 0;
    const listeners = new Set();
    // Private rows never enter the backlog nor reach an aggregate listener.
    const unsubscribe = bus.on('audit.appended', ({ slug, isPublic, row }) => {
        if (!isPublic)
            return;
        const entry = { n: ++counter, slug, row: row };
        backlog.push(entry);
        if (backlog.length > AGGREGATE_BACKLOG * 2)
            backlog.splice(0, backlog.length - AGGREGATE_BACKLOG);
        for (const listener of listeners)
            listener(entry);
    });
    const isPublicNow = async (slug) => (await store.docs.get(MACHINES, slug))?.is_public === true;
    function explore(machine, opts) {
        const { slug } = machine;
        return {
            open(push, lastEventId) {
                const resumeAfter = seqOfEventId(lastEventId, slug);
                const relay = createOrderedRelay({
                    seqOf: (row) => row.seq,
                    fetch: (from, to, limit) => store.logs.read(chainStream(slug), { fromSeq: from, toSeq: to, limit }),
                    start: chain.head(slug).then((head) => {
                        const headSeq = head?.seq ?? -1;
                        let after = resumeAfter === undefined ? headSeq : Math.min(resumeAfter, headSeq);
                        if (headSeq - after > MAX_REPLAY) {
                            push({ event: SKIPPED_EVENT, data: { slug, from_seq: after + 1, to_seq: headSeq - MAX_REPLAY, hint: `read them with GET /api/chain/${slug}/explore` } });
                            after = headSeq - MAX_REPLAY;
                        }
                        return { after, target: headSeq };
                    }),
                    push: (row) => push(rowEvent(row)),
                    ...(opts.publicOnly ? { allowed: () => isPublicNow(slug) } : {}),
                    ...(deps.onError ? { onError: deps.onError } : {}),
                });
                const off = bus.on('audit.appended', (event) => {
                    if (event.slug !== slug)
                        return;
                    if (opts.publicOnly && !event.isPublic)
                        return relay.close();
                    relay.offer(event.row);
                });
                return () => {
                    off();
                    relay.close();
                };
            },
        };
    }
    function aggregate() {
        return {
            open(push, lastEventId) {
                let closed = false;
                const startN = counter;
                const from = lastEventId === undefined ? -1 : backlog.findIndex((e) => `${e.slug}:${e.row.seq}` === lastEventId);
                const missed = from === -1 ? [] : backlog.slice(from + 1).filter((e) => e.n <= startN);
                let buffered = missed.length > 0 ? [] : undefined;
                const listener = (entry) => {
                    if (closed)
                        return;
                    if (buffered)
                        buffered.push(entry);
                    else
                        push(aggregateEvent(entry));
                };
                listeners.add(listener);
                if (buffered) {
                    void (async () => {
                        // A machine may have turned private since its rows were buffered: check each once.
                        const visible = new Map();
                        for (const e of missed) {
                            if (!visible.has(e.slug))
                                visible.set(e.slug, await isPublicNow(e.slug));
                        }
                        if (closed)
                            return;
                        for (const e of missed)
                            if (visible.get(e.slug))
                                push(aggregateEvent(e));
                        const live = buffered ?? [];
                        buffered = undefined;
                        for (const e of live)
                            if (!closed)
                                push(aggregateEvent(e));
                    })().catch((err) => deps.onError?.(err));
                }
                return () => {
                    closed = true;
                    listeners.delete(listener);
                };
            },
        };
    }
    return { explore, aggregate, stop: unsubscribe };
}
function rowEvent(row) {
    return { id: String(row.seq), event: ROW_EVENT, data: row };
}
function aggregateEvent(entry) {
    return { id: `${entry.slug}:${entry.row.seq}`, event: ROW_EVENT, data: { ...entry.row, slug: entry.slug } };
}
/** The seq in a Last-Event-ID of this machine's stream (`12` or `<slug>:12`); undefined for anything else. */
export function seqOfEventId(id, slug) {
    if (id === undefined)
        return undefined;
    const match = /^(?:([a-z0-9-]+):)?(\d{1,15})$/.exec(id.trim());
    if (!match || (match[1] !== undefined && match[1] !== slug))
        return undefined;
    return Number(match[2]);
}
//# sourceMappingURL=streams.service.js.map