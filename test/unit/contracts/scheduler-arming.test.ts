import { afterEach, describe, expect, it, vi } from 'vitest';
import { createClock, TICK_MS, tickOf } from '../../../src/lib/clock.js';
import { ContractScheduler } from '../../../src/domain/contracts/scheduler.js';

afterEach(() => void vi.useRealTimers());

describe('scheduler timer and passes', () => {
  it('arms its timer once per start and once per pass, however many contracts it holds and fires', async () => {
    vi.useFakeTimers({ now: 1_000 * TICK_MS });
    const clock = createClock();
    const contracts = 2_000;
    const first = tickOf(clock.now()) + 1;
    const fired: string[] = [];
    // Due tick offsets that fall as well as rise: each one earlier than the last would re-arm.
    const ids = Array.from({ length: contracts }, (_, i) => [`c${i}`, first + ((contracts - i) % 3)] as [string, number]);
    const scheduler = new ContractScheduler({
      clock,
      loadAll: async () => ids,
      fireDue: async (id, nowTick) => {
        fired.push(id);
        return nowTick + 5 + (contracts - fired.length);
      },
      onError: (err) => {
        throw err;
      },
    });
    const arming = vi.spyOn(globalThis, 'setTimeout');
    await scheduler.start();
    expect(arming).toHaveBeenCalledTimes(1);
    arming.mockClear();
    await vi.advanceTimersByTimeAsync(4 * TICK_MS);
    expect(fired).toHaveLength(contracts);
    // One pass per due tick (three of them), each arming once when it is done.
    expect(arming.mock.calls.length).toBeLessThanOrEqual(3);
    await scheduler.stop();
  });

  it('fires a pass longest due first with at most maxInFlight fires under way, and every due contract in it', async () => {
    vi.useFakeTimers({ now: 1_000 * TICK_MS });
    const clock = createClock();
    const now = tickOf(clock.now());
    // Due ticks in no order, some in the future (not this pass).
    const ids = Array.from({ length: 40 }, (_, i) => [`c${i}`, now - ((i * 7) % 13) + (i % 10 === 9 ? 20 : 0)] as [string, number]);
    const dueNow = ids.filter(([, due]) => due <= now);
    let running = 0;
    let most = 0;
    const started: Array<[string, number]> = [];
    const release: Array<() => void> = [];
    const scheduler = new ContractScheduler({
      clock,
      maxInFlight: 3,
      loadAll: async () => ids,
      fireDue: async (id, nowTick) => {
        started.push([id, scheduler.dueOf(id)!]);
        most = Math.max(most, ++running);
        await new Promise<void>((resolve) => release.push(resolve));
        running -= 1;
        return nowTick + 100;
      },
      onError: (err) => {
        throw err;
      },
    });
    await scheduler.start();
    const pass = scheduler.runDue();
    // Each fire ends only when let go: the pass holds exactly three under way until every due one started.
    while (started.length < dueNow.length || release.length > 0) {
      await vi.advanceTimersByTimeAsync(0);
      expect(running).toBeLessThanOrEqual(3);
      release.shift()?.();
    }
    expect(await pass).toBe(dueNow.length);
    expect(most).toBe(3);
    expect(started.map(([id]) => id).sort()).toEqual(dueNow.map(([id]) => id).sort());
    const order = started.map(([, due]) => due);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    await scheduler.stop();
  });
});
