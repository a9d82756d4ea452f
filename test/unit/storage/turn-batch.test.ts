import { describe, expect, it } from 'vitest';
import { batchPerTurn } from '../../../src/storage/postgres/turn-batch.js';

function recorder() {
  const calls: string[][] = [];
  const state = { fail: false };
  const read = batchPerTurn<string, string>({
    idOf: (k) => k,
    async one(k) {
      calls.push([k]);
      if (state.fail) throw new Error('down');
      return k === 'missing' ? undefined : `v:${k}`;
    },
    async many(keys) {
      calls.push(keys);
      if (state.fail) throw new Error('down');
      return new Map(keys.filter((k) => k !== 'missing').map((k) => [k, `v:${k}`]));
    },
  });
  return { read, calls, state };
}

describe('reads batched per event-loop turn', () => {
  it('sends the reads of one turn as one query, each key once, and answers every caller', async () => {
    const { read, calls } = recorder();
    const answers = await Promise.all(['a', 'b', 'a', 'missing', 'c'].map(read));
    expect(answers).toEqual(['v:a', 'v:b', 'v:a', undefined, 'v:c']);
    expect(calls).toEqual([['a', 'b', 'missing', 'c']]);
  });

  it('sends a lone read through the single-key query', async () => {
    const { read, calls } = recorder();
    expect(await read('a')).toBe('v:a');
    expect(calls).toEqual([['a']]);
  });

  it('starts a new query for a read asked after the turn its batch was sent in', async () => {
    const { read, calls } = recorder();
    const first = read('a');
    await first;
    await Promise.all([read('a'), read('b')]);
    expect(calls).toEqual([['a'], ['a', 'b']]);
  });

  it('rejects every caller of a batch whose query failed, and the next turn tries again', async () => {
    const { read, calls, state } = recorder();
    state.fail = true;
    const results = await Promise.allSettled([read('a'), read('b')]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    state.fail = false;
    expect(await read('a')).toBe('v:a');
    expect(calls).toEqual([['a', 'b'], ['a']]);
  });
});
