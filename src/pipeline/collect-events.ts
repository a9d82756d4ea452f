import type { SseEvent, SseSource } from '../lib/handler-results.js';

export interface CollectOptions {
  maxEvents: number;
  maxMs: number;
  lastEventId?: string;
  signal?: AbortSignal;
}

/**
 * Reads a stream for a bounded time: resolves with what arrived once `maxEvents` events came, `maxMs`
 * passed, the signal aborted or the stream ended, whichever is first. Used where a caller cannot hold a stream open
 * (MCP tool calls, `core_http`).
 */
export function collectEvents(source: SseSource, opts: CollectOptions): Promise<{ events: SseEvent[]; complete: boolean }> {
  return new Promise((resolve) => {
    const events: SseEvent[] = [];
    let stop: (() => void) | undefined;
    let done = false;
    const finish = (complete: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      stop?.();
      resolve({ events, complete });
    };
    const onAbort = () => finish(false);
    const timer = setTimeout(() => finish(false), opts.maxMs);
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    stop = source.open(
      (event) => {
        if (done) return;
        events.push(event);
        if (events.length >= opts.maxEvents) finish(true);
      },
      opts.lastEventId,
      // The stream ended (its receiver lost the right to read it): what arrived, ending with why, is all.
      () => finish(true),
    );
    if (done) stop();
  });
}

export function isSseSource(value: unknown): value is SseSource {
  return typeof value === 'object' && value !== null && typeof (value as SseSource).open === 'function';
}
