import { describe, expect, it } from 'vitest';
import { onceUnlessFailed } from '../../../src/lib/once.js';

describe('onceUnlessFailed', () => {
  it('runs once for every caller after a success, and again after a failure', async () => {
    let runs = 0;
    const outcomes = [new Error('store away'), 'ready'];
    const ready = onceUnlessFailed(async () => {
      const outcome = outcomes[runs++];
      if (outcome instanceof Error) throw outcome;
      return outcome;
    });
    await expect(Promise.all([ready(), ready()])).rejects.toThrow('store away');
    expect(runs).toBe(1);
    expect(await Promise.all([ready(), ready()])).toEqual(['ready', 'ready']);
    expect(await ready()).toBe('ready');
    expect(runs).toBe(2);
  });
});
