/** Heartbeat comment interval: proxies close idle connections, the spec says every 25 s. */
export const HEARTBEAT_MS = 25_000;
export function formatEvent(event) {
    const id = event.id !== undefined ? `id: ${event.id}\n` : '';
    return `${id}event: ${event.event}\ndata: ${JSON.stringify(event.data)}\n\n`;
}
/** Streams a source as server-sent events until the client goes away. */
export function streamSse(req, res, source, heartbeatMs = HEARTBEAT_MS) {
    res.status(200);
    res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
    res.setHeader('Cache-Control', 'no-cache, no-transform');
    res.setHeader('Connection', 'keep-alive');
    res.setHeader('X-Accel-Buffering', 'no');
    res.flushHeaders();
    res.write(': connected\n\n');
    const lastEventId = req.header('last-event-id') ?? (typeof req.query.last_event_id === 'string' ? req.query.last_event_id : undefined);
    const stop = source.open((event) => {
        res.write(formatEvent(event));
    }, lastEventId);
    const heartbeat = setInterval(() => res.write(': heartbeat\n\n'), heartbeatMs);
    heartbeat.unref();
    res.on('close', () => {
        clearInterval(heartbeat);
        stop();
    });
}
//# sourceMappingURL=sse.js.map