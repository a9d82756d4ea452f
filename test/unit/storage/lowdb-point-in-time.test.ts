import { describe, expect, it, onTestFinished } from 'vitest';
import { createLowdbStore } from '../../../src/storage/lowdb/lowdb.store.js';
import { tempDir } from '../../helpers/server.js';

describe('lowdb pointInTime (the backup barrier)', () => {
  it('holds exactly the calls made before it, waits for them, and lets the later ones through after', async () => {
    const { dir, cleanup } = await tempDir('core-pit-');
    const store = createLowdbStore({ dataDir: dir, fsync: false });
    await store.open();
    onTestFinished(async () => {
      await store.close();
      await cleanup();
    });
    const append = (i: number) => store.logs.append('s', () => ({ tick: 1, type: 'x', i }));
    const put = (i: number) => store.docs.put('c', `d${i}`, { i });
    // Calls made before the barrier: not yet settled when it is asked for.
    const early = [...Array.from({ length: 100 }, (_, i) => append(i)), ...Array.from({ length: 20 }, (_, i) => put(i))];
    const barrier = store.pointInTime();
    // Calls made after it: held until it has taken its copy.
    const late = [...Array.from({ length: 50 }, (_, i) => append(100 + i)), ...Array.from({ length: 10 }, (_, i) => put(20 + i))];
    const taken = await barrier;
    await Promise.all([...early, ...late]);

    expect(taken.counts).toEqual([['s', 100]]);
    const docs = taken.documents.find(([name]) => name === 'c')?.[1] ?? [];
    expect(docs.map(([id]) => id).sort()).toEqual(Array.from({ length: 20 }, (_, i) => `d${i}`).sort());
    // The later calls all went through, after it.
    expect(await store.logs.count('s')).toBe(150);
    expect((await store.docs.list('c')).length).toBe(30);
  });
});
