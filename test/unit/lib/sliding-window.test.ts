import { describe, expect, it } from 'vitest';
import { createSlidingWindow, setNewest } from '../../../src/lib/sliding-window.js';

describe('the sliding window', () => {
  const sliding = createSlidingWindow(1000);

  it('keeps the uses inside the window, a use exactly one window old being out', () => {
    expect(sliding.live([0, 100, 500, 900], 1100)).toEqual([500, 900]);
    expect(sliding.live([0, 100], 1000)).toEqual([100]);
    expect(sliding.isStale([0, 100], 1100)).toBe(true);
    expect(sliding.isStale([0, 100], 1099)).toBe(false);
    expect(sliding.isStale([], 0)).toBe(true);
  });

  it('takes a use under the limit and refuses the next, saying when the oldest counted use leaves', () => {
    expect(sliding.take([], 2, 0)).toEqual({ taken: true, hits: [0] });
    expect(sliding.take([0], 2, 400)).toEqual({ taken: true, hits: [0, 400] });
    expect(sliding.take([0, 400], 2, 500)).toEqual({ taken: false, hits: [0, 400], retryAfterMs: 500 });
    expect(sliding.take([0, 400], 2, 1000)).toEqual({ taken: true, hits: [400, 1000] });
    expect(sliding.retryAfterMs([400], 2, 1000)).toBe(0);
  });

  it('counts from the use that frees a place when the limit dropped below the uses held', () => {
    expect(sliding.take([100, 200, 300], 1, 500)).toEqual({ taken: false, hits: [100, 200, 300], retryAfterMs: 800 });
    expect(sliding.retryAfterMs([100, 200, 300], 2, 500)).toBe(700);
  });

  it('refuses everything with a limit of 0, for a whole window', () => {
    expect(sliding.take([], 0, 0)).toEqual({ taken: false, hits: [], retryAfterMs: 1000 });
  });

  it('never says to retry in under a millisecond', () => {
    expect(sliding.retryAfterMs([0.5], 1, 1000)).toBe(1);
  });
});

describe('setNewest', () => {
  it('moves a key to the newest place and forgets the oldest beyond the bound', () => {
    const map = new Map([
      ['a', 1],
      ['b', 2],
    ]);
    setNewest(map, 'a', 3, 2);
    expect([...map]).toEqual([
      ['b', 2],
      ['a', 3],
    ]);
    setNewest(map, 'c', 4, 2);
    expect([...map]).toEqual([
      ['a', 3],
      ['c', 4],
    ]);
  });
});
