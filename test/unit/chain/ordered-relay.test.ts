import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

// The log's reads take a (fake) millisecond each and `idle` moves the fake clock past every pending read,
// so what the relay has pushed by then does not depend on how fast the machine is.
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
});
afterEach(() => {
  vi.useRealTimers();
});
import { createOrderedRelay } from '../../../src/domain/chain/ordered-relay.js';
import { StoreUnavailableError } from '../../../src/storage/port.js';

/** A log of numbered items 0..n-1 that a test can grow, with the relay reading from it. */
function harness(initial: number, start: { after: number }) {
  let size = initial;
  const pushed: number[] = [];
  /** Reads fail with this while set (an outage: `StoreUnavailableError`; a bug: anything else). */
  let failing: Error | undefined;
  let reads = 0;
  let ended = 0;
  let release!: () => void;
  const started = new Promise<{ after: number; target: number }>((resolve) => {
    release = () => resolve({ after: start.after, target: size - 1 });
  });
  const relay = createOrderedRelay<number>({
    seqOf: (n) => n,
    fetch: async (from, to, limit) => {
      await new Promise((r) => setTimeout(r, 1));
      reads += 1;
      if (failing) throw failing;
      const out: number[] = [];
      for (let n = from; n <= Math.min(to, size - 1) && out.length < limit; n++) out.push(n);
      return out;
    },
    start: started,
    push: (n) => pushed.push(n),
    end: () => void (ended += 1),
    retryDelay: (attempt) => 5 * 2 ** Math.min(attempt, 3),
    onError: () => undefined,
    batch: 3,
  });
  const append = () => {
    const n = size++;
    relay.offer(n);
    return n;
  };
  /** An item the relay is not told about, as when a live notification was missed. */
  const appendSilently = () => size++;
  const idle = () => vi.advanceTimersByTimeAsync(30);
  const fail = (error: Error | undefined) => void (failing = error);
  return { relay, pushed, release, append, appendSilently, idle, fail, reads: () => reads, ended: () => ended };
}

/** A started relay whose store has gone unavailable, with a gap (one item missed) that makes it read. */
async function duringOutage() {
  const h = harness(2, { after: 1 });
  h.release();
  await h.idle();
  h.fail(new StoreUnavailableError('unreachable', 'the database is unreachable'));
  h.appendSilently();
  h.append();
  await h.idle();
  return h;
}

describe('the ordered relay', () => {
  it('replays the missed range in batches, then delivers live items in order', async () => {
    const h = harness(8, { after: 1 });
    h.release();
    await h.idle();
    h.append();
    h.append();
    await h.idle();
    expect(h.pushed).toEqual([2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('does not skip items appended between subscribing and learning the starting point', async () => {
    const h = harness(3, { after: 4 });
    h.append();
    h.append();
    h.release();
    await h.idle();
    expect(h.pushed).toEqual([3, 4]);
  });

  it('neither repeats nor loses items that arrive while a replay is running', async () => {
    const h = harness(5, { after: -1 });
    h.release();
    for (let i = 0; i < 10; i++) h.append();
    h.append();
    await h.idle();
    h.append();
    await h.idle();
    expect(h.pushed).toEqual(Array.from({ length: 17 }, (_, i) => i));
  });

  it('fills a gap from the store when a live item arrives after items it was not told about', async () => {
    const h = harness(2, { after: 1 });
    h.release();
    await h.idle();
    h.appendSilently();
    h.appendSilently();
    h.append();
    await h.idle();
    expect(h.pushed).toEqual([2, 3, 4]);
  });

  it('drops a hint about an item the store does not hold yet instead of looping', async () => {
    const h = harness(2, { after: 1 });
    h.release();
    await h.idle();
    h.relay.offer(5);
    await h.idle();
    expect(h.pushed).toEqual([]);
    h.append();
    await h.idle();
    expect(h.pushed).toEqual([2]);
  });

  it('stops delivering once closed', async () => {
    const h = harness(2, { after: -1 });
    h.relay.close();
    h.release();
    h.append();
    await h.idle();
    expect(h.pushed).toEqual([]);
  });

  it('keeps reading through an outage and catches up once the store is back, without ending the stream', async () => {
    const h = await duringOutage();
    await h.idle();
    const failedReads = h.reads();
    expect(failedReads).toBeGreaterThan(1);
    expect(h.pushed).toEqual([]);
    // Live items arriving during the outage do not start reads of their own beside the retry.
    h.append();
    h.fail(undefined);
    await h.idle();
    expect(h.pushed).toEqual([2, 3, 4]);
    expect(h.ended()).toBe(0);
    h.append();
    await h.idle();
    expect(h.pushed).toEqual([2, 3, 4, 5]);
  });

  it('ends the stream on a failure that waiting does not mend, and stops retrying once closed', async () => {
    const h = harness(2, { after: 1 });
    h.release();
    await h.idle();
    h.fail(new Error('relation does not exist'));
    h.appendSilently();
    h.append();
    await h.idle();
    expect(h.ended()).toBe(1);
    const reads = h.reads();
    h.fail(undefined);
    h.append();
    await h.idle();
    expect(h.pushed).toEqual([]);
    expect(h.reads()).toBe(reads);
  });

  it('stops retrying when closed during an outage', async () => {
    const h = await duringOutage();
    h.relay.close();
    const reads = h.reads();
    await h.idle();
    await h.idle();
    expect(h.reads()).toBe(reads);
    expect(h.ended()).toBe(0);
  });
});
