import { describe, expect, it } from 'vitest';
import { TICK_MS } from '../../../src/lib/clock.js';
import { ceilTick, collapse, cronNextTick, nextDue } from '../../../src/domain/contracts/triggers.js';

describe('trigger arithmetic', () => {
  it('counts recurring fires from the latest of entry, anchor and last fire', () => {
    const t = { kind: 'every' as const, every_ticks: 10 };
    expect(nextDue(t, { entered_tick: 100, anchor_tick: 50, watermark: undefined })).toBe(110);
    expect(nextDue(t, { entered_tick: 100, anchor_tick: 105, watermark: undefined })).toBe(115);
    expect(nextDue(t, { entered_tick: 100, anchor_tick: 50, watermark: 130 })).toBe(140);
  });

  it('collapses missed recurring fires into the latest one and counts the rest', () => {
    expect(collapse({ kind: 'every', every_ticks: 10 }, 110, 110)).toEqual({ fireDue: 110, skipped: 0 });
    expect(collapse({ kind: 'every', every_ticks: 10 }, 110, 145)).toEqual({ fireDue: 140, skipped: 3 });
  });

  it('fires a one_shot at its tick, or on arrival when entered later, and only while its watermark is below it', () => {
    const t = { kind: 'one_shot' as const, at_tick: 500 };
    expect(nextDue(t, { entered_tick: 300, anchor_tick: 300, watermark: undefined })).toBe(500);
    expect(nextDue(t, { entered_tick: 900, anchor_tick: 800, watermark: undefined })).toBe(900);
    expect(nextDue(t, { entered_tick: 0, anchor_tick: 0, watermark: 500 })).toBeUndefined();
  });

  it('puts a cron occurrence at the first tick starting at or after it, in UTC', () => {
    const monday9 = Date.UTC(2026, 2, 9, 9, 0, 0);
    const friday = ceilTick(Date.UTC(2026, 2, 6, 10, 0, 0));
    expect(cronNextTick('0 9 * * 1-5', friday)).toBe(Math.ceil(monday9 / TICK_MS));
    expect(cronNextTick('0 9 * * 1-5', friday)! * TICK_MS - monday9).toBeLessThan(TICK_MS);
    expect(cronNextTick('0 9 * * 1-5', friday)! * TICK_MS).toBeGreaterThanOrEqual(monday9);
  });

  it('counts missed cron occurrences when collapsing', () => {
    const start = ceilTick(Date.UTC(2026, 0, 1, 0, 0, 0));
    const first = cronNextTick('*/10 * * * *', start)!;
    const hourLater = ceilTick(Date.UTC(2026, 0, 1, 1, 0, 0));
    const { fireDue, skipped } = collapse({ kind: 'cron', cron: '*/10 * * * *' }, first, hourLater);
    expect(fireDue).toBe(hourLater);
    expect(skipped).toBe(5);
  });
});
