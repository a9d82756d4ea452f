export function createOrderedRelay(opts) {
    const batch = opts.batch ?? 500;
    let closed = false;
    /** Last seq delivered; undefined until `start` resolved. */
    let last;
    /** Highest seq known to exist. */
    let target = -1;
    let fetching = true;
    /** Lowest seq offered before `start` resolved: rows appended after the subscription are never skipped. */
    let earliestOffer;
    async function catchUp() {
        fetching = true;
        try {
            while (!closed && last !== undefined && last < target) {
                if (opts.allowed && !(await opts.allowed()))
                    return close();
                const items = await opts.fetch(last + 1, target, batch);
                if (closed)
                    return;
                const before = last;
                for (const item of items) {
                    if (opts.seqOf(item) !== last + 1)
                        break;
                    last = opts.seqOf(item);
                    opts.push(item);
                }
                // Nothing readable yet past `last`: drop the hint rather than spin; the next live item re-arms it.
                if (last === before)
                    target = last;
            }
        }
        catch (err) {
            opts.onError?.(err);
            close();
        }
        finally {
            fetching = false;
        }
        // Live items that arrived during the last await are covered by `target`: loop again if needed.
        if (!closed && last !== undefined && last < target)
            void catchUp();
    }
    function close() {
        closed = true;
    }
    opts.start.then(({ after, target: t }) => {
        if (closed)
            return;
        last = earliestOffer === undefined ? after : Math.min(after, earliestOffer - 1);
        target = Math.max(target, t);
        void catchUp();
    }, (err) => {
        opts.onError?.(err);
        close();
    });
    return {
        offer(item) {
            if (closed)
                return;
            const seq = opts.seqOf(item);
            if (seq > target)
                target = seq;
            if (last === undefined) {
                earliestOffer = Math.min(earliestOffer ?? seq, seq);
                return;
            }
            if (seq <= last)
                return;
            if (!fetching && seq === last + 1) {
                last = seq;
                opts.push(item);
                return;
            }
            if (!fetching)
                void catchUp();
        },
        close,
    };
}
//# sourceMappingURL=ordered-relay.js.map