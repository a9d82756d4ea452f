/**
 * Reads a stream for a bounded time: resolves with what arrived once `maxEvents` events came, `maxMs`
 * passed or the signal aborted, whichever is first. Used where a caller cannot hold a stream open
 * (MCP tool calls, `core_http`).
 */
export function collectEvents(source, opts) {
    return new Promise((resolve) => {
        const events = [];
        let stop;
        let done = false;
        const finish = (complete) => {
            if (done)
                return;
            done = true;
            clearTimeout(timer);
            opts.signal?.removeEventListener('abort', onAbort);
            stop?.();
            resolve({ events, complete });
        };
        const onAbort = () => finish(false);
        const timer = setTimeout(() => finish(false), opts.maxMs);
        opts.signal?.addEventListener('abort', onAbort, { once: true });
        stop = source.open((event) => {
            if (done)
                return;
            events.push(event);
            if (events.length >= opts.maxEvents)
                finish(true);
        }, opts.lastEventId);
        if (done)
            stop();
    });
}
export function isSseSource(value) {
    return typeof value === 'object' && value !== null && typeof value.open === 'function';
}
//# sourceMappingURL=collect-events.js.map