/**
 * Delivers a numbered sequence (a chain's rows by seq) to one subscriber without gaps or duplicates
 * across the boundary between replay and live delivery. Live items are only hints: an item is pushed
 * at once when it is the next number and nothing is being fetched; otherwise the missing range is read
 * from the store first. One relay per subscriber.
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
  batch?: number;
}

export function createOrderedRelay<T>(opts: RelayOptions<T>): OrderedRelay<T> {
  const batch = opts.batch ?? 500;
  let closed = false;
  /** Last seq delivered; undefined until `start` resolved. */
  let last: number | undefined;
  /** Highest seq known to exist. */
  let target = -1;
  let fetching = true;
  /** Lowest seq offered before `start` resolved: rows appended after the subscription are never skipped. */
  let earliestOffer: number | undefined;

  async function catchUp(): Promise<void> {
    fetching = true;
    try {
      while (!closed && last !== undefined && last < target) {
        if (opts.allowed && !(await opts.allowed())) return close();
        const items = await opts.fetch(last + 1, target, batch);
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
      opts.onError?.(err);
      close();
    } finally {
      fetching = false;
    }
    // Live items that arrived during the last await are covered by `target`: loop again if needed.
    if (!closed && last !== undefined && last < target) void catchUp();
  }

  function close(): void {
    closed = true;
  }

  opts.start.then(
    ({ after, target: t }) => {
      if (closed) return;
      last = earliestOffer === undefined ? after : Math.min(after, earliestOffer - 1);
      target = Math.max(target, t);
      void catchUp();
    },
    (err: unknown) => {
      opts.onError?.(err);
      close();
    },
  );

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
