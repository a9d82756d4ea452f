import { afterEach, describe, expect, it, vi } from 'vitest';
import { createClock, TICK_MS, tickOf } from '../../../src/lib/clock.js';
import { ContractScheduler } from '../../../src/domain/contracts/scheduler.js';

afterEach(() => void vi.useRealTimers());

describe('scheduler timer', () => {
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
});
