import type { Request, Response } from 'express';
import type { SseEvent, SseSource } from '../../lib/handler-results.js';

/** Heartbeat comment interval: proxies close idle connections, the spec says every 25 s. */
export const HEARTBEAT_MS = 25_000;

export function formatEvent(event: SseEvent): string {
  const id = event.id !== undefined ? `id: ${event.id}\n` : '';
  return `${id}event: ${event.event}\ndata: ${JSON.stringify(event.data)}\n\n`;
}

/** Told when a subscriber connects (+1) and goes away (-1), for metrics. */
export type SseSubscriberHook = (delta: 1 | -1) => void;

/** Streams a source as server-sent events until the client goes away. */
export function streamSse(req: Request, res: Response, source: SseSource, heartbeatMs = HEARTBEAT_MS, onSubscriber?: SseSubscriberHook): void {
  res.status(200);
  res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
  res.setHeader('Cache-Control', 'no-cache, no-transform');
  res.setHeader('Connection', 'keep-alive');
  res.setHeader('X-Accel-Buffering', 'no');
  res.flushHeaders();
  res.write(': connected\n\n');
  const lastEventId = req.header('last-event-id') ?? (typeof req.query.last_event_id === 'string' ? req.query.last_event_id : undefined);
  const heartbeat = setInterval(() => res.write(': heartbeat\n\n'), heartbeatMs);
  heartbeat.unref();
  let stopped = false;
  let counted = false;
  let stop: (() => void) | undefined;
  const finish = () => {
    if (stopped) return;
    stopped = true;
    clearInterval(heartbeat);
    if (counted) onSubscriber?.(-1);
    stop?.();
  };
  // A source that ends (its receiver lost the right to read it) closes the response after its last event.
  stop = source.open(
    (event) => {
      res.write(formatEvent(event));
    },
    lastEventId,
    () => {
      finish();
      res.end();
    },
  );
  if (stopped) return stop();
  counted = true;
  onSubscriber?.(1);
  res.on('close', finish);
}
