import { afterEach, describe, expect, it, vi } from 'vitest';
import { createBoundedSlots, type BoundedSlotsOptions, type SlotOrder } from '../../../src/lib/bounded-slots.js';

const refusals: BoundedSlotsOptions['refusals'] = {
  holderFull: (held) => new Error(`holder has ${held}`),
  queueFull: ({ running, waiting }) => new Error(`full: ${running} running, ${waiting} waiting`),
};

const slotsOf = (order: SlotOrder, more: Partial<BoundedSlotsOptions> = {}) =>
  createBoundedSlots({ slots: 1, maxWaiting: 10, perHolder: 10, order, refusals, ...more });

/** Enters every holder in turn and returns the order they are served in, each freeing its slot at once. */
async function servedOrder(order: SlotOrder, holders: string[]): Promise<string[]> {
  const slots = slotsOf(order);
  const served: string[] = [];
  const turns = holders.map((holder) =>
    slots.enter(holder).turn.then((free) => {
      served.push(holder);
      queueMicrotask(free);
    }),
  );
  await Promise.all(turns);
  return served;
}

afterEach(() => {
  vi.useRealTimers();
});

describe('bounded slots', () => {
  it('serves waiters in arrival order with the arrival order', async () => {
    expect(await servedOrder('arrival', ['a', 'a', 'a', 'b', 'b', 'c'])).toEqual(['a', 'a', 'a', 'b', 'b', 'c']);
  });

  it('round-robins between holders with the fair order', async () => {
    expect(await servedOrder('fair', ['a', 'a', 'a', 'b', 'b', 'c'])).toEqual(['a', 'b', 'c', 'a', 'b', 'a']);
  });

  it('gives a freed slot to the holder with the fewest slots before the one served longest ago, with the fair order', async () => {
    const slots = slotsOf('fair', { slots: 2 });
    const b = await slots.enter('b').turn;
    const a = await slots.enter('a').turn;
    const served: string[] = [];
    const waiting = ['b', 'a'].map((holder) =>
      slots.enter(holder).turn.then((free) => {
        served.push(holder);
        return free;
      }),
    );
    a();
    await Promise.resolve();
    expect(served).toEqual(['a']);
    b();
    for (const free of await Promise.all(waiting)) free();
    expect(served).toEqual(['a', 'b']);
    expect(slots.load()).toEqual({ running: 0, waiting: 0 });
  });

  it('hands a freed slot straight to the next waiter, so an entry arriving meanwhile waits behind it', async () => {
    const slots = slotsOf('arrival');
    const free = await slots.enter('a').turn;
    const second = slots.enter('b');
    free();
    expect(slots.load()).toEqual({ running: 1, waiting: 0 });
    const third = slots.enter('c');
    expect(slots.load()).toEqual({ running: 1, waiting: 1 });
    (await second.turn)();
    (await third.turn)();
    expect(slots.load()).toEqual({ running: 0, waiting: 0 });
  });

  it("refuses at once past the holder's share and past the queue bound, and counts nothing for a refusal", async () => {
    const slots = slotsOf('arrival', { perHolder: 2, maxWaiting: 1 });
    const free = await slots.enter('a').turn;
    const waiting = slots.enter('a');
    expect(() => slots.enter('a')).toThrow('holder has 2');
    expect(() => slots.enter('b')).toThrow('full: 1 running, 1 waiting');
    expect(slots.load()).toEqual({ running: 1, waiting: 1 });
    free();
    free();
    (await waiting.turn)();
    expect(slots.load()).toEqual({ running: 0, waiting: 0 });
    (await slots.enter('a').turn)();
  });

  it('drops a waiter whose signal aborts, with its reason, and asks for the signal only when it has to wait', async () => {
    const slots = slotsOf('fair');
    const signalOf = vi.fn(() => new AbortController().signal);
    const free = await slots.enter('a', signalOf).turn;
    expect(signalOf).not.toHaveBeenCalled();
    const controller = new AbortController();
    const waiting = slots.enter('b', () => controller.signal);
    controller.abort(new Error('client left'));
    await expect(waiting.turn).rejects.toThrow('client left');
    const aborted = AbortSignal.abort(new Error('gone already'));
    await expect(slots.enter('c', aborted).turn).rejects.toThrow('gone already');
    expect(slots.load()).toEqual({ running: 1, waiting: 0 });
    free();
    expect(slots.load()).toEqual({ running: 0, waiting: 0 });
  });

  it('gives up a waiter after the longest wait, and never after it was served', async () => {
    vi.useFakeTimers();
    const slots = slotsOf('arrival', { maxWait: { ms: 1000, error: () => new Error('waited too long') } });
    const first = slots.enter('a');
    const second = slots.enter('b');
    const rejected = expect(second.turn).rejects.toThrow('waited too long');
    await vi.advanceTimersByTimeAsync(1000);
    await rejected;
    expect(slots.load()).toEqual({ running: 1, waiting: 0 });
    (await first.turn)();
    expect(slots.load()).toEqual({ running: 0, waiting: 0 });
  });

  it('lets a ticket be cancelled while waiting (withdrawn) or once served (the slot is freed), more than once', async () => {
    const slots = slotsOf('fair', { withdrawn: () => new Error('withdrawn early') });
    const first = slots.enter('a');
    const second = slots.enter('b');
    second.cancel();
    second.cancel();
    await expect(second.turn).rejects.toThrow('withdrawn early');
    await first.turn;
    first.cancel();
    first.cancel();
    expect(slots.load()).toEqual({ running: 0, waiting: 0 });
  });
});
