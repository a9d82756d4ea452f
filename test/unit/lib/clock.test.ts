import { describe, expect, it } from 'vitest';
import { createFakeClock, phaseOf, tickOf, tickStartMs, TICK_MS } from '../../../src/lib/clock.js';

describe('the tick clock', () => {
  it('counts ticks of 777 ms from the Unix epoch', () => {
    expect(TICK_MS).toBe(777);
    expect(tickOf(0)).toBe(0);
    expect(tickOf(776)).toBe(0);
    expect(tickOf(777)).toBe(1);
    expect(tickStartMs(tickOf(1_795_344_901_809))).toBeLessThanOrEqual(1_795_344_901_809);
  });

  it('gives the phase within the tick in [0, 1)', () => {
    expect(phaseOf(777 * 5)).toBe(0);
    expect(phaseOf(777 * 5 + 388.5)).toBeCloseTo(0.5, 10);
    expect(phaseOf(-1)).toBeGreaterThanOrEqual(0);
  });

  it('moves a fake clock only when told', () => {
    const clock = createFakeClock(777 * 1000);
    expect(clock.tick()).toBe(1000);
    clock.advance(777 * 3);
    expect(clock.tick()).toBe(1003);
    clock.set(0);
    expect(clock.tick()).toBe(0);
  });
});
