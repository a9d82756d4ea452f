import { readlinkSync } from 'node:fs';
import { open, readdir, readFile, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { StoreUnavailableError, type Store } from '../../../src/storage/port.js';
import { makeLowdbHarness } from '../../store/lowdb-harness.js';

/**
 * Disk faults injected through the file layer itself: `FileHandle.prototype.write` and `datasync` of
 * the real handles the store opens, so the store's own rollback runs against real files. A fault is
 * armed for the files whose path contains `match`; a write it hits writes half its bytes first (a torn
 * write, as a filling disk does), then fails.
 */
function injectDiskFaults() {
  let fault: { match: string; code: 'ENOSPC' | 'EIO'; on: 'write' | 'datasync' } | undefined;
  const errno = (code: string) => Object.assign(new Error(`${code}: injected`), { code });
  // Which file a handle is on: its descriptor's link under /proc.
  const pathOf = (fh: FileHandle) => readlinkSync(`/proc/self/fd/${fh.fd}`);
  const hit = (fh: FileHandle, on: 'write' | 'datasync') => fault !== undefined && fault.on === on && pathOf(fh).includes(fault.match);
  return {
    /** Free bytes as the store sees them: none while a fault is armed. */
    freeBytes: async () => (fault === undefined ? 1024 ** 3 : 0),
    arm(next: NonNullable<typeof fault>) {
      fault = next;
    },
    disarm() {
      fault = undefined;
    },
    async install() {
      const probe = await open(import.meta.filename, 'r');
      const proto = Object.getPrototypeOf(probe) as FileHandle & { write: (...args: unknown[]) => Promise<unknown> };
      await probe.close();
      const { write, datasync } = proto;
      vi.spyOn(proto, 'write').mockImplementation(async function (this: FileHandle, ...args: unknown[]) {
        if (!hit(this, 'write')) return write.apply(this, args as never);
        const [data, offset = 0, length] = args as [Buffer, number, number | undefined];
        const half = Math.floor((length ?? data.length) / 2);
        if (half > 0) await write.call(this, data, offset, half, null);
        throw errno(fault!.code);
      });
      vi.spyOn(proto, 'datasync').mockImplementation(async function (this: FileHandle) {
        if (hit(this, 'datasync')) throw errno(fault!.code);
        return datasync.call(this);
      });
    },
  };
}

afterEach(() => {
  vi.restoreAllMocks();
});

/** Rows as `n` values, read back from a store. */
async function ns(store: Store, stream: string): Promise<number[]> {
  return (await store.logs.read(stream)).map((row) => row.n as number);
}

const onLinux = process.platform === 'linux';

describe('lowdb on a full or failing disk', () => {
  it.runIf(onLinux)(
    'refuses appends hit by ENOSPC as StoreUnavailableError, keeps nothing of them now or after a restart, and chains the next append on the last acknowledged row',
    async () => {
      const faults = injectDiskFaults();
      await faults.install();
      const harness = await makeLowdbHarness({ fsync: true, diskReserveBytes: 0, freeBytes: faults.freeBytes });
      try {
        const { store, dataDir } = harness;
        const append = (n: number) => store.logs.append('chain/m', (head, seq) => ({ tick: seq, type: 'e', n, prev: head?.n ?? null }));
        for (let n = 0; n < 5; n++) await append(n);
        faults.arm({ match: '/logs/', code: 'ENOSPC', on: 'write' });
        const refused = await Promise.allSettled([append(100), append(101), append(102)]);
        for (const r of refused) {
          expect(r.status).toBe('rejected');
          const reason = (r as PromiseRejectedResult).reason as StoreUnavailableError;
          expect(reason).toBeInstanceOf(StoreUnavailableError);
          expect(reason.reason).toBe('full');
          expect(reason.message).toContain('ENOSPC');
        }
        expect(store.status().ready).toBe(false);
        expect(store.status().checks.disk).toMatchObject({ ok: false, detail: expect.stringContaining('ENOSPC') });
        expect(await ns(store, 'chain/m')).toEqual([0, 1, 2, 3, 4]);
        expect(await store.logs.count('chain/m')).toBe(5);

        faults.disarm();
        const next = await append(5);
        expect(next.seq).toBe(5);
        expect(next.prev).toBe(4);
        await vi.waitFor(() => expect(store.status()).toMatchObject({ ready: true, checks: { disk: { ok: true } } }), { timeout: 60_000, interval: 20 });

        const again = await harness.reopen();
        expect(await ns(again, 'chain/m')).toEqual([0, 1, 2, 3, 4, 5]);
        const text = await readFile(join(dataDir, 'logs', (await logFiles(dataDir))[0]!), 'utf8');
        expect(text.split('\n').filter(Boolean)).toHaveLength(6);
      } finally {
        await harness.cleanup();
      }
    },
  );

  it.runIf(onLinux)('never reports a failed fsync as success: the batch is refused and rolled back, and a later write succeeds', async () => {
    const faults = injectDiskFaults();
    await faults.install();
    const harness = await makeLowdbHarness({ fsync: true, diskReserveBytes: 0, freeBytes: faults.freeBytes });
    try {
      const { store } = harness;
      const append = (n: number) => store.logs.append('chain/f', (_head, seq) => ({ tick: seq, type: 'e', n }));
      await append(0);
      faults.arm({ match: '/logs/', code: 'EIO', on: 'datasync' });
      await expect(append(1)).rejects.toMatchObject({ name: 'StoreUnavailableError', reason: 'full', message: expect.stringContaining('EIO') });
      expect(await ns(store, 'chain/f')).toEqual([0]);
      faults.disarm();
      await append(2);
      expect(await ns(await harness.reopen(), 'chain/f')).toEqual([0, 2]);
    } finally {
      await harness.cleanup();
    }
  });

  it.runIf(onLinux)('refuses a document write hit by ENOSPC, keeps the record as it was, and recovers by itself once space is back', async () => {
    const faults = injectDiskFaults();
    await faults.install();
    const harness = await makeLowdbHarness({ fsync: true, diskReserveBytes: 0, freeBytes: faults.freeBytes });
    try {
      const { store } = harness;
      await store.docs.put('things', 'a', { v: 1 });
      faults.arm({ match: '/docs/', code: 'ENOSPC', on: 'write' });
      await expect(store.docs.put('things', 'a', { v: 2 })).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(store.docs.insert('things', 'b', { v: 3 })).rejects.toBeInstanceOf(StoreUnavailableError);
      expect(await store.docs.get('things', 'a')).toEqual({ v: 1 });
      expect(await store.docs.get('things', 'b')).toBeUndefined();
      expect(store.status().checks.disk!.ok).toBe(false);
      faults.disarm();
      // No write comes: the recheck alone brings the check back.
      await vi.waitFor(() => expect(store.status().ready).toBe(true), { timeout: 60_000, interval: 20 });
      await store.docs.put('things', 'c', { v: 4 });
      const again = await harness.reopen();
      expect(await again.docs.list('things')).toEqual([{ v: 1 }, { v: 4 }]);
    } finally {
      await harness.cleanup();
    }
  });

  it('goes unready when the free space near the reserve falls under it, and ready again when it is back', async () => {
    let free = 2 * 1024 * 1024;
    const harness = await makeLowdbHarness({ fsync: false, diskReserveBytes: 1024 * 1024, freeBytes: async () => free });
    try {
      const { store } = harness;
      expect(store.status()).toMatchObject({ ready: true, checks: { disk: { ok: true } } });
      free = 512 * 1024;
      await store.logs.append('chain/r', () => ({ tick: 1, type: 'e' }));
      await vi.waitFor(() => expect(store.status().ready).toBe(false), { timeout: 60_000, interval: 10 });
      expect(store.status().checks.disk!.detail).toMatch(/512 KiB free, under the reserve of 1024 KiB/);
      free = 10 * 1024 * 1024;
      await vi.waitFor(() => expect(store.status().ready).toBe(true), { timeout: 60_000, interval: 20 });
    } finally {
      await harness.cleanup();
    }
  });
});

async function logFiles(dataDir: string): Promise<string[]> {
  return (await readdir(join(dataDir, 'logs'))).filter((f) => f.endsWith('.jsonl'));
}
