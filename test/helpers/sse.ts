import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { onTestFinished } from 'vitest';

/** An open SSE response read with eventsource-parser; closed when the test finishes. */
export interface OpenSse {
  res: Response;
  events: EventSourceMessage[];
  comments: string[];
  /** Resolves once `n` events arrived; rejects naming how many did after `timeoutMs` (a hang-catcher). */
  until(n: number, timeoutMs?: number): Promise<void>;
  /** Gives the server time to deliver anything further (no event expected). */
  settle(): Promise<void>;
  /** Resolves when the server ends the stream (or the test aborts it). */
  ended: Promise<void>;
  close(): void;
}

/** Opens `url` as an event stream; a non-2xx answer is returned as is, with no events. */
export async function openSse(url: string, headers: Record<string, string> = {}): Promise<OpenSse> {
  const controller = new AbortController();
  onTestFinished(() => controller.abort());
  const res = await fetch(url, { headers, signal: controller.signal });
  const events: EventSourceMessage[] = [];
  const comments: string[] = [];
  const waiters = new Set<{ n: number; resolve: () => void }>();
  const parser = createParser({
    onEvent: (event) => {
      events.push(event);
      for (const w of waiters) if (events.length >= w.n) w.resolve();
    },
    onComment: (comment) => comments.push(comment),
  });
  let ended: Promise<void> = Promise.resolve();
  if (res.ok && res.body) {
    ended = (async () => {
      const decoder = new TextDecoder();
      try {
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) parser.feed(decoder.decode(chunk, { stream: true }));
      } catch {
        /* aborted */
      }
    })();
  }
  const until = (n: number, timeoutMs = 60_000) =>
    events.length >= n
      ? Promise.resolve()
      : new Promise<void>((resolve, reject) => {
          const waiter = {
            n,
            resolve: () => {
              clearTimeout(timer);
              waiters.delete(waiter);
              resolve();
            },
          };
          const timer = setTimeout(() => {
            waiters.delete(waiter);
            reject(new Error(`only ${events.length} of ${n} events arrived`));
          }, timeoutMs);
          waiters.add(waiter);
        });
  const settle = () => new Promise<void>((r) => setTimeout(r, 150));
  return { res, events, comments, until, settle, ended, close: () => controller.abort() };
}
