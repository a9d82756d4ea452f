import { mkdtemp, readdir, readlink, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HandlePool } from '../../../src/storage/lowdb/handle-pool.js';
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

  it('closes the least recently used idle handle first, never one in use, and counts every open handle', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'handles-'));
    try {
      const pool = new HandlePool(2);
      const entries = ['a', 'b', 'c', 'd', 'e'].map((name) => pool.entry(join(dir, name)));
      const [a, b, c] = entries as [ReturnType<typeof pool.entry>, ReturnType<typeof pool.entry>, ReturnType<typeof pool.entry>];
      for (const e of [a, b, c]) await pool.use(e, async () => undefined);
      // `a` was used least recently: closed when `c` opened.
      expect([a.fh, b.fh, c.fh].map((fh) => fh !== undefined)).toEqual([false, true, true]);
      await pool.use(a, async () => undefined);
      expect([a.fh, b.fh, c.fh].map((fh) => fh !== undefined)).toEqual([true, false, true]);
      // Five at once: the four still in use stay open (more than the bound), the one done is closed at once;
      // once all are done the bound holds again.
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      let inside = 0;
      let allInside!: () => void;
      const fourInside = new Promise<void>((resolve) => (allInside = resolve));
      const held = entries.slice(0, 4).map((e) =>
        pool.use(e, async () => {
          if (++inside === 4) allInside();
          await gate;
        }),
      );
      await fourInside;
      await pool.use(entries[4]!, async () => undefined);
      expect(pool.openCount).toBe(4);
      expect(entries.map((e) => e.fh !== undefined)).toEqual([true, true, true, true, false]);
      release();
      await Promise.all(held);
      expect(pool.openCount).toBe(2);
      expect(entries.filter((e) => e.fh !== undefined)).toHaveLength(2);
      expect(entries[4]!.fh).toBeUndefined();
      for (const e of entries) await pool.release(e);
      expect(pool.openCount).toBe(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
