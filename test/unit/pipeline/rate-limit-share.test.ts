import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createRateLimiter } from '../../../src/pipeline/rate-limit.js';
import { createLocalPubSub } from '../../../src/storage/local-coordination.js';
import type { Caller } from '../../../src/domain/identity/caller.js';

// The share is sent on a timer: a fake one, so "one share interval later" does not depend on the machine.
const sleep = (ms: number) => vi.advanceTimersByTimeAsync(ms);
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
});
afterEach(() => {
  vi.useRealTimers();
});
const caller: Caller = { uid: 'u1', credential: 'user-key', keyId: 'k1' };

describe('rate limit shared by the processes of one store', () => {
  it('refuses a caller in one process once it used its burst in another, and refills at the one rate', async () => {
    let t = 0;
    const pubsub = createLocalPubSub();
    const share = { pubsub, isOpen: () => true };
    const a = createRateLimiter({ perSecond: 2, burst: 4 }, () => t, undefined, share);
    const b = createRateLimiter({ perSecond: 2, burst: 4 }, () => t, undefined, share);
    for (let i = 0; i < 4; i++) a.take(caller, undefined);
    // Told within one share interval (200 ms) what the caller took in the other process.
    await sleep(300);
    expect(() => b.take(caller, undefined)).toThrow(expect.objectContaining({ code: 'RATE_LIMITED' }));
    // Another caller is not affected.
    b.take({ uid: 'u2', credential: 'user-key', keyId: 'k2' }, undefined);
    t += 1000;
    b.take(caller, undefined);
    b.take(caller, undefined);
    expect(() => b.take(caller, undefined)).toThrow(/at most 2 a second/);
    // What b gave out reaches a as well.
    await sleep(300);
    expect(() => a.take(caller, undefined)).toThrow(expect.objectContaining({ code: 'RATE_LIMITED' }));
  });

  it('keeps processes apart without a share, and sends nothing once the store is closed', async () => {
    const t = 0;
    const pubsub = createLocalPubSub();
    let open = true;
    const a = createRateLimiter({ perSecond: 1, burst: 2 }, () => t, undefined, { pubsub, isOpen: () => open });
    const b = createRateLimiter({ perSecond: 1, burst: 2 }, () => t, undefined, { pubsub, isOpen: () => open });
    const alone = createRateLimiter({ perSecond: 1, burst: 2 }, () => t);
    open = false;
    a.take(caller, undefined);
    a.take(caller, undefined);
    await sleep(300);
    b.take(caller, undefined);
    b.take(caller, undefined);
    alone.take(caller, undefined);
    alone.take(caller, undefined);
    expect(() => alone.take(caller, undefined)).toThrow(expect.objectContaining({ code: 'RATE_LIMITED' }));
  });
});
