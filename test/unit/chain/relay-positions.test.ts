import { describe, expect, it } from 'vitest';
import { createRelayPositions } from '../../../src/domain/chain/relay-positions.js';

describe('relay positions', () => {
  it('moves the watermark over contiguous rows and holds the ones emitted ahead of a gap', () => {
    const p = createRelayPositions();
    expect(p.get('m')).toBeUndefined();
    expect(p.emitted('m', 0)).toBe(false);
    p.mark('m', 3);
    expect(p.get('m')).toBe(3);
    p.mark('m', 4);
    // 5 and 6 are another process's rows not relayed yet; 7 was appended here.
    p.mark('m', 7);
    expect(p.get('m')).toBe(4);
    expect(p.emitted('m', 7)).toBe(true);
    expect(p.emitted('m', 5)).toBe(false);
    p.mark('m', 5);
    p.mark('m', 6);
    expect(p.get('m')).toBe(7);
    // A catch-up that read everything up to 9 accounts for it all.
    p.advance('m', 9);
    expect(p.get('m')).toBe(9);
    expect(p.emitted('m', 8)).toBe(true);
    p.advance('m', 2);
    expect(p.get('m')).toBe(9);
  });

  it('starts a machine at a stream start only when untracked, and forgets the least recently moved first', () => {
    const p = createRelayPositions({ maxTracked: 2 });
    p.startAt('a', 10);
    p.startAt('a', 3);
    expect(p.get('a')).toBe(10);
    p.mark('b', 0);
    p.mark('a', 11);
    p.mark('c', 0);
    expect(p.tracked()).toEqual(['a', 'c']);
    expect(p.get('b')).toBeUndefined();
  });

  it('keeps at most maxAhead seqs above the watermark (the oldest may then be emitted twice, never lost)', () => {
    const p = createRelayPositions({ maxAhead: 2 });
    p.mark('m', 0);
    p.mark('m', 2);
    p.mark('m', 3);
    p.mark('m', 5);
    expect(p.emitted('m', 2)).toBe(false);
    expect(p.emitted('m', 3)).toBe(true);
    expect(p.emitted('m', 5)).toBe(true);
    expect(p.get('m')).toBe(0);
  });
});
