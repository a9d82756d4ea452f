import { backoffDelay } from '../../lib/backoff.js';
import { StoreUnavailableError } from '../../storage/port.js';

/** First pause before reading again from a store that was unavailable; doubles per failed try up to the cap. */
const RETRY_BASE_MS = 100;
const RETRY_CAP_MS = 5_000;

/**
 * Delivers a numbered sequence (a chain's rows by seq) to one subscriber without gaps or duplicates
 * across the boundary between replay and live delivery. Live items are only hints: an item is pushed
 * at once when it is the next number and nothing is being fetched; otherwise the missing range is read
 * from the store first. One relay per subscriber.
 *
 * A read that fails because the store is unavailable (an outage) is tried again with backoff for as
 * long as the relay is open: the rows are in the log, and the stream catches up once the store is back.
 * Any other failure stops delivery and calls `end`, so the stream closes and its client reconnects
 * (from its Last-Event-ID) instead of holding a stream that neither delivers nor ends.
 */
export interface OrderedRelay<T> {
  /** A live item arrived (in any order, possibly already delivered). */
  offer(item: T): void;
  /** Stops delivery; pending fetches are dropped. */
  close(): void;
}

export interface RelayOptions<T> {
  seqOf(item: T): number;
  /** Items with seq in [from, to], in seq order, at most `limit`. */
  fetch(from: number, to: number, limit: number): Promise<T[]>;
  /** The seq delivery starts after (replay begins at +1); resolved once, before anything is pushed. */
  start: Promise<{ after: number; target: number }>;
  push(item: T): void;
  /** Called before each fetch round; returning false closes the relay (e.g. the machine turned private). */
  allowed?: () => Promise<boolean>;
  /** Told when a failure stops delivery. */
  onError?: (err: unknown) => void;
  /** Called once when delivery stops by itself (a failure that waiting does not mend): the stream ends. */
  end?: () => void;
  /** The pause before read try `attempt` (0-based) while the store is unavailable; tests shorten it. */
  retryDelay?: (attempt: number) => number;
  batch?: number;
}

export function createOrderedRelay<T>(opts: RelayOptions<T>): OrderedRelay<T> {
  const batch = opts.batch ?? 500;
  const retryDelay = opts.retryDelay ?? ((attempt: number) => backoffDelay(attempt, RETRY_BASE_MS, RETRY_CAP_MS));
  let closed = false;
  /** Reads failed in a row on an unavailable store, and the timer of the next try. */
  let failures = 0;
  let retry: NodeJS.Timeout | undefined;
  /** Last seq delivered; undefined until `start` resolved. */
  let last: number | undefined;
  /** Highest seq known to exist. */
  let target = -1;
  let fetching = true;
  /** Lowest seq offered before `start` resolved: rows appended after the subscription are never skipped. */
  let earliestOffer: number | undefined;

  async function catchUp(): Promise<void> {
    fetching = true;
    let again: number | undefined;
    try {
      while (!closed && last !== undefined && last < target) {
        if (opts.allowed && !(await opts.allowed())) return close();
        const items = await opts.fetch(last + 1, target, batch);
        failures = 0;
        if (closed) return;
        const before = last;
        for (const item of items) {
          if (opts.seqOf(item) !== last + 1) break;
          last = opts.seqOf(item);
          opts.push(item);
        }
        // Nothing readable yet past `last`: drop the hint rather than spin; the next live item re-arms it.
        if (last === before) target = last;
      }
    } catch (err) {
      if (err instanceof StoreUnavailableError && !closed) again = retryDelay(failures++);
      else fail(err);
    } finally {
      // Still fetching while a retry is planned: live items only raise `target` meanwhile.
      if (again === undefined) fetching = false;
    }
    if (again !== undefined) {
      retry = setTimeout(() => {
        retry = undefined;
        if (!closed) void catchUp();
      }, again);
      return;
    }
    // Live items that arrived during the last await are covered by `target`: loop again if needed.
    if (!closed && last !== undefined && last < target) void catchUp();
  }

  function close(): void {
    closed = true;
    if (retry !== undefined) clearTimeout(retry);
    retry = undefined;
  }

  function fail(err: unknown): void {
    if (closed) return;
    opts.onError?.(err);
    close();
    opts.end?.();
  }

  opts.start.then(({ after, target: t }) => {
    if (closed) return;
    last = earliestOffer === undefined ? after : Math.min(after, earliestOffer - 1);
    target = Math.max(target, t);
    void catchUp();
  }, fail);

  return {
    offer(item) {
      if (closed) return;
      const seq = opts.seqOf(item);
      if (seq > target) target = seq;
      if (last === undefined) {
        earliestOffer = Math.min(earliestOffer ?? seq, seq);
        return;
      }
      if (seq <= last) return;
      if (!fetching && seq === last + 1) {
        last = seq;
        opts.push(item);
        return;
      }
      if (!fetching) void catchUp();
    },
    close,
  };
}
