import { readdir, readlink } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { makeLowdbHarness } from '../../store/lowdb-harness.js';

/** Descriptors this process holds on files under `dir`. */
async function openUnder(dir: string): Promise<number> {
  let n = 0;
  for (const fd of await readdir('/proc/self/fd')) {
    const target = await readlink(`/proc/self/fd/${fd}`).catch(() => '');
    if (target.startsWith(dir)) n++;
  }
  return n;
}

const onLinux = process.platform === 'linux';

describe('lowdb log file handles', () => {
  it.runIf(onLinux)('keeps at most the configured number of log files open however many streams are used, and reopens closed ones on demand', async () => {
    const max = 8;
    const harness = await makeLowdbHarness({ fsync: false, maxOpenLogFiles: max });
    try {
      const { store, dataDir } = harness;
      const streams = Array.from({ length: 300 }, (_, i) => `chain/m-${i}`);
      let peak = 0;
      for (let round = 0; round < 3; round++) {
        // Appends in parallel batches, then reads of every stream: each use may reopen an evicted handle.
        for (let i = 0; i < streams.length; i += 50) {
          await Promise.all(
            streams.slice(i, i + 50).map((s) => store.logs.append(s, (head) => ({ tick: round, type: 'e', n: ((head?.n as number | undefined) ?? -1) + 1 }))),
          );
          peak = Math.max(peak, await openUnder(dataDir));
        }
        for (const s of streams) expect((await store.logs.read(s)).map((r) => r.n)).toEqual(Array.from({ length: round + 1 }, (_, k) => k));
        peak = Math.max(peak, await openUnder(dataDir));
      }
      // Concurrent users of distinct handles may briefly exceed the bound, never by more than a batch.
      expect(await openUnder(dataDir)).toBeLessThanOrEqual(max);
      expect(peak).toBeLessThanOrEqual(max + 50);
      expect((await store.logs.streams('chain/')).length).toBe(300);
      // Everything survives a reopen, and closing releases every handle.
      const again = await harness.reopen();
      expect(await again.logs.count('chain/m-299')).toBe(3);
      await again.close();
      expect(await openUnder(dataDir)).toBe(0);
      await again.open();
    } finally {
      await harness.cleanup();
    }
  });

  it.runIf(onLinux)('serves interleaved appends and reads of more streams than handles without losing or reordering a row', async () => {
    const harness = await makeLowdbHarness({ fsync: true, maxOpenLogFiles: 2 });
    try {
      const { store } = harness;
      const streams = ['a', 'b', 'c', 'd', 'e'];
      const work: Promise<unknown>[] = [];
      for (let n = 0; n < 40; n++) {
        for (const s of streams) {
          work.push(store.logs.append(s, (_, seq) => ({ tick: n, type: 't', n: seq })));
          if (n % 3 === 0) work.push(store.logs.read(s, { reverse: true, limit: 2 }));
        }
      }
      await Promise.all(work);
      const again = await harness.reopen();
      for (const s of streams) expect((await again.logs.read(s)).map((r) => r.n)).toEqual(Array.from({ length: 40 }, (_, k) => k));
    } finally {
      await harness.cleanup();
    }
  });
});
