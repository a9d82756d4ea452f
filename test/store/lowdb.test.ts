import { appendFile, cp, mkdtemp, open, readdir, readFile, rm, stat, writeFile, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { journalFile, journalGenerations } from '../../src/storage/lowdb/journal-generations.js';
import { createLowdbStore, type LowdbWarning } from '../../src/storage/lowdb/lowdb.store.js';
import { appendLinks, chainLink, expectUnbrokenChain, type ChainRow } from './log.contract.js';
import { makeLowdbHarness } from './lowdb-harness.js';
import { runStoreContract } from './store.contract.js';
import { freshStore } from './store-harness.js';

runStoreContract('lowdb', () => makeLowdbHarness());

async function lowdb(options: Parameters<typeof makeLowdbHarness>[0] = {}) {
  const harness = await freshStore(() => makeLowdbHarness(options));
  return { ...harness, dataDir: (harness as Awaited<ReturnType<typeof makeLowdbHarness>>).dataDir };
}

describe('lowdb files', () => {
  it.each([
    ['has no trailing newline', '{"seq":5,"tick":5,"type":"li'],
    ['is not valid JSON', '{"seq":5,"tick":\n'],
  ])('drops a torn last line that %s at reopen, reports it, and keeps every other row', async (_, torn) => {
    const warnings: LowdbWarning[] = [];
    const { store, reopen, dataDir } = await lowdb({ onWarning: (w) => warnings.push(w) });
    await appendLinks(store, 'chain/m', 5);
    await store.close();
    const file = join(dataDir, 'logs', 'chain%2Fm.jsonl');
    const intactSize = (await stat(file)).size;
    await appendFile(file, torn);
    const again = await reopen();
    expect(await again.logs.count('chain/m')).toBe(5);
    expect(warnings).toEqual([expect.objectContaining({ stream: 'chain/m', droppedBytes: Buffer.byteLength(torn) })]);
    expect((await stat(file)).size).toBe(intactSize);
    await appendLinks(again, 'chain/m', 2);
    expectUnbrokenChain(await again.logs.read<ChainRow>('chain/m'));
  });

  it('still serves a log whose damaged row is not the last one: reads skip that row, which stays on disk and is reported', async () => {
    const warnings: LowdbWarning[] = [];
    const { store, reopen, dataDir } = await lowdb({ onWarning: (w) => warnings.push(w) });
    await appendLinks(store, 'audit', 2);
    await store.close();
    await appendFile(join(dataDir, 'logs', 'audit.jsonl'), 'garbage\n{"seq":3,"tick":3,"type":"link"}\n');
    const again = await reopen();
    const rows = await again.logs.read('audit');
    expect(rows.map((r) => r.seq)).toEqual([0, 1, 3]);
    expect(await again.logs.get('audit', 2)).toBeUndefined();
    expect(await again.logs.count('audit')).toBe(4);
    expect((await readFile(join(dataDir, 'logs', 'audit.jsonl'), 'utf8')).split('\n')[2]).toBe('garbage');
    expect(warnings.some((w) => /first: seq 2/.test(w.message))).toBe(true);
  });

  it('only appends to a log file: the bytes already written never change', async () => {
    const { store, dataDir } = await lowdb();
    const file = join(dataDir, 'logs', 'audit%3Ax.jsonl');
    await appendLinks(store, 'audit:x', 10);
    const before = await readFile(file);
    await Promise.all(Array.from({ length: 20 }, (_, n) => store.logs.append<ChainRow>('audit:x', (head, seq) => chainLink(head, seq, n))));
    const after = await readFile(file);
    expect(after.length).toBeGreaterThan(before.length);
    expect(after.subarray(0, before.length).equals(before)).toBe(true);
    expect(after.toString().trimEnd().split('\n')).toHaveLength(30);
  });

  it('writes a document as one appended journal line: bytes already written never change', async () => {
    const { store, dataDir } = await lowdb();
    await Promise.all(Array.from({ length: 30 }, (_, n) => store.docs.put('machines', `m${n}`, { n })));
    expect(await readdir(join(dataDir, 'docs'))).toEqual(['machines.jsonl']);
    const file = join(dataDir, 'docs', 'machines.jsonl');
    const before = await readFile(file);
    expect(
      before
        .toString()
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line) as unknown),
    ).toContainEqual({ put: 'm7', value: { n: 7 } });
    await store.docs.put('machines', 'm7', { n: 70 });
    await store.docs.delete('machines', 'm8');
    const after = await readFile(file);
    expect(after.subarray(0, before.length).equals(before)).toBe(true);
    expect(after.toString().trimEnd().split('\n').slice(-2)).toEqual(['{"put":"m7","value":{"n":70}}', '{"delete":"m8"}']);
  });

  it('loads a collection stored whole by earlier versions (<name>.json keyed by id) and journals changes on top of it', async () => {
    const { store, reopen, dataDir } = await lowdb();
    await store.close();
    const legacy = { m1: { slug: 'm1', owner: 'u1' }, m2: { slug: 'm2', owner: 'u2' }, m3: { slug: 'm3', owner: 'u1' } };
    const snapshot = join(dataDir, 'docs', 'machines.json');
    await writeFile(snapshot, JSON.stringify(legacy, null, 2));
    const opened = await reopen();
    expect(await opened.docs.list('machines')).toEqual(Object.values(legacy));
    expect((await opened.docs.find('machines', { owner: 'u1' })).items).toEqual([legacy.m1, legacy.m3]);
    await opened.docs.put('machines', 'm2', { slug: 'm2', owner: 'u1' });
    await opened.docs.delete('machines', 'm1');
    await opened.docs.insert('machines', 'm4', { slug: 'm4', owner: 'u1' });
    const again = await reopen();
    expect((await again.docs.find<{ slug: string }>('machines', { owner: 'u1' })).items.map((m) => m.slug)).toEqual(['m2', 'm3', 'm4']);
    expect(JSON.parse(await readFile(snapshot, 'utf8'))).toEqual(legacy);
  });

  it('compacts into the lowdb snapshot once as many journal lines are dead as records live, and loses nothing', async () => {
    const { store, reopen, dataDir } = await lowdb({ fsync: false });
    for (let n = 0; n < 10; n++) await store.docs.insert('counters', `c${n}`, { n: 0, owner: n % 2 === 0 ? 'even' : 'odd' });
    for (let n = 1; n <= 1200; n++) await store.docs.put('counters', `c${n % 10}`, { n, owner: n % 2 === 0 ? 'even' : 'odd' });
    const expected = await store.docs.list('counters');
    // close waits for the background snapshot write.
    await store.close();
    const docsDir = join(dataDir, 'docs');
    const snapshot = JSON.parse(await readFile(join(docsDir, 'counters.json'), 'utf8')) as Record<string, unknown>;
    expect(Object.keys(snapshot)).toHaveLength(10);
    // The generation the compaction started is the only journal left, holding the writes made after it.
    const generations = await journalGenerations(docsDir, 'counters');
    expect(generations).toEqual([1]);
    const journalLines = (await readFile(journalFile(docsDir, 'counters', 1), 'utf8')).split('\n').length - 1;
    expect(journalLines).toBeLessThan(1200);
    const again = await reopen();
    expect(await again.docs.list('counters')).toEqual(expected);
    expect((await again.docs.find('counters', { owner: 'even' })).items).toHaveLength(5);
  });

  it('goes on writing while a compaction writes its snapshot, and loses nothing if the process dies at any point of it', async () => {
    const { store, reopen, dataDir } = await lowdb();
    const docsDir = join(dataDir, 'docs');
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    // The snapshot is written with FileHandle.writeFile (journal lines with write): hold its first call.
    const probe = await open(join(dataDir, 'probe'), 'w');
    const proto = Object.getPrototypeOf(probe) as FileHandle;
    await probe.close();
    const realWriteFile = proto.writeFile;
    let snapshotsStarted = 0;
    const spy = vi.spyOn(proto, 'writeFile').mockImplementation(async function (this: FileHandle, ...args: Parameters<FileHandle['writeFile']>) {
      if (snapshotsStarted++ === 0) await held;
      return realWriteFile.apply(this, args);
    });
    onTestFinished(() => spy.mockRestore());
    for (let n = 0; n < 10; n++) await store.docs.insert('counters', `c${n}`, { n: 0 });
    for (let n = 1; n <= 1000; n++) await store.docs.put('counters', `c${n % 10}`, { n });
    // The snapshot write is held: these are acknowledged all the same (a blocked write would hang here).
    for (let n = 1001; n <= 1050; n++) await store.docs.put('counters', `c${n % 10}`, { n });
    expect(snapshotsStarted).toBe(1);
    await store.docs.insert('counters', 'late', { n: -1 });
    await store.docs.delete('counters', 'c3');
    const expected = await store.docs.list('counters');
    expect(await journalGenerations(docsDir, 'counters')).toEqual([0, 1]);

    // A crash now: the old snapshot (none yet), generation 0 up to the switch and generation 1 after it.
    const crashed = await mkdtemp(join(tmpdir(), 'core-crash-'));
    onTestFinished(() => rm(crashed, { recursive: true, force: true }));
    await cp(dataDir, crashed, { recursive: true });
    release();
    await store.close();
    expect(await journalGenerations(docsDir, 'counters')).toEqual([1]);
    expect(await (await reopen()).docs.list('counters')).toEqual(expected);

    spy.mockRestore();
    const openAt = async (dir: string) => {
      const opened = createLowdbStore({ dataDir: dir });
      await opened.open();
      onTestFinished(() => opened.close());
      return opened;
    };
    const fromCrash = await openAt(crashed);
    expect(await fromCrash.docs.list('counters')).toEqual(expected);
    await fromCrash.close();
    // A crash after the snapshot was written but before the generations it covers were removed.
    await writeFile(join(crashed, 'docs', 'counters.json'), await readFile(join(docsDir, 'counters.json')));
    const afterSnapshot = await openAt(crashed);
    expect(await afterSnapshot.docs.list('counters')).toEqual(expected);
    await afterSnapshot.docs.put('counters', 'c1', { n: 7 });
    expect(await afterSnapshot.docs.get('counters', 'c1')).toEqual({ n: 7 });
  });

  it('loads the same records when a crash left the journal beside a snapshot that already holds it', async () => {
    const { store, reopen, dataDir } = await lowdb();
    await store.docs.insert('machines', 'a', { n: 1 });
    await store.docs.insert('machines', 'b', { n: 1 });
    await store.docs.put('machines', 'a', { n: 2 });
    await store.docs.insert('machines', 'c', { n: 1 });
    await store.docs.delete('machines', 'b');
    await store.docs.insert('machines', 'b', { n: 3 });
    const expected = await store.docs.list('machines');
    await store.close();
    // What a compaction writes before it empties the journal.
    await writeFile(join(dataDir, 'docs', 'machines.json'), JSON.stringify({ a: { n: 2 }, c: { n: 1 }, b: { n: 3 } }));
    const again = await reopen();
    expect(await again.docs.list('machines')).toEqual(expected);
    expect(await again.docs.count('machines')).toBe(3);
  });

  it('drops a torn last journal line at reopen, reports it, and refuses a damaged line that intact ones follow', async () => {
    const warnings: LowdbWarning[] = [];
    const { store, reopen, dataDir } = await lowdb({ onWarning: (w) => warnings.push(w) });
    await store.docs.insert('machines', 'a', { n: 1 });
    await store.close();
    const file = join(dataDir, 'docs', 'machines.jsonl');
    const intact = await readFile(file);
    await appendFile(file, '{"put":"b","val');
    const again = await reopen();
    expect(await again.docs.list('machines')).toEqual([{ n: 1 }]);
    expect(warnings).toEqual([expect.objectContaining({ stream: 'docs:machines', droppedBytes: 15 })]);
    expect((await readFile(file)).equals(intact)).toBe(true);
    await again.docs.insert('machines', 'b', { n: 2 });
    await again.close();
    await writeFile(file, `garbage\n${intact.toString()}`);
    const damaged = await reopen();
    await expect(damaged.docs.get('machines', 'a')).rejects.toThrow(/damaged and intact lines follow/);
  });

  it('undoes every write of a failed batch and those queued behind it, in memory, in the indexes and on disk', async () => {
    const { store, dataDir } = await lowdb();
    await store.docs.insert('machines', 'a', { slug: 'a', owner: 'u1' });
    await store.docs.insert('machines', 'b', { slug: 'b', owner: 'u1' });
    expect(await store.docs.find('machines', { owner: 'u1' })).toEqual({
      items: [
        { slug: 'a', owner: 'u1' },
        { slug: 'b', owner: 'u1' },
      ],
    });
    const file = join(dataDir, 'docs', 'machines.jsonl');
    const sizeBefore = (await stat(file)).size;
    const probe = await open(file, 'r');
    const proto = Object.getPrototypeOf(probe) as FileHandle;
    await probe.close();
    const realWrite = proto.write as (this: FileHandle, data: Buffer, offset: number, length: number) => Promise<unknown>;
    const spy = vi.spyOn(proto, 'write').mockImplementationOnce(async function (this: FileHandle, ...args: unknown[]) {
      const [buffer, offset, length] = args as [Buffer, number, number];
      await realWrite.call(this, buffer, offset, Math.floor(length / 2));
      throw new Error('disk full');
    } as FileHandle['write']);
    onTestFinished(() => spy.mockRestore());
    const writes = [
      store.docs.put('machines', 'c', { slug: 'c', owner: 'u1' }),
      store.docs.delete('machines', 'a'),
      store.docs.put('machines', 'b', { slug: 'b', owner: 'u2' }),
    ];
    const settled = await Promise.allSettled(writes);
    const failed = { status: 'rejected', reason: expect.objectContaining({ message: 'disk full' }) };
    expect(settled).toEqual([failed, failed, failed]);
    expect((await stat(file)).size).toBe(sizeBefore);
    expect(await store.docs.list('machines')).toEqual([
      { slug: 'a', owner: 'u1' },
      { slug: 'b', owner: 'u1' },
    ]);
    expect((await store.docs.find('machines', { owner: 'u1' })).items).toEqual([
      { slug: 'a', owner: 'u1' },
      { slug: 'b', owner: 'u1' },
    ]);
    expect((await store.docs.find('machines', { owner: 'u2' })).items).toEqual([]);
    await store.docs.put('machines', 'd', { slug: 'd', owner: 'u2' });
    expect((await store.docs.find('machines', { owner: 'u2' })).items).toEqual([{ slug: 'd', owner: 'u2' }]);
  });

  it('rejects collection names that could escape or clash in the docs folder', async () => {
    const { store } = await lowdb();
    for (const name of ['', '../x', 'a/b', 'Upper', '.hidden', 'x'.repeat(65)]) {
      await expect(store.docs.put(name, 'id', { a: 1 })).rejects.toThrow(/invalid collection name/);
    }
  });

  it('names log files by a reversible encoding that keeps case-different streams apart', async () => {
    const { store, reopen, dataDir } = await lowdb();
    for (const stream of ['chain/my-machine', 'Chain/My-Machine', 'runs:a.b', '%41']) await appendLinks(store, stream, 1);
    expect((await readdir(join(dataDir, 'logs'))).sort()).toEqual(
      ['%2541.jsonl', '%43hain%2F%4Dy-%4Dachine.jsonl', 'chain%2Fmy-machine.jsonl', 'runs%3Aa%2Eb.jsonl'].sort(),
    );
    const again = await reopen();
    expect((await again.logs.streams()).sort()).toEqual(['%41', 'Chain/My-Machine', 'chain/my-machine', 'runs:a.b'].sort());
  });

  it('creates no files for collections and streams that are only read', async () => {
    const { store, dataDir } = await lowdb();
    await store.docs.get('machines', 'x');
    await store.docs.list('machines');
    await store.logs.read('chain/none');
    await store.logs.head('chain/none');
    expect(await readdir(join(dataDir, 'docs'))).toEqual([]);
    expect(await readdir(join(dataDir, 'logs'))).toEqual([]);
  });

  it('rejects every append of a failed batch and those built on it, and rolls the file back', async () => {
    const { store, dataDir } = await lowdb();
    await appendLinks(store, 'audit', 3);
    const file = join(dataDir, 'logs', 'audit.jsonl');
    const sizeBefore = (await stat(file)).size;
    const probe = await open(file, 'r');
    const proto = Object.getPrototypeOf(probe) as FileHandle;
    await probe.close();
    const realWrite = proto.write as (this: FileHandle, data: Buffer, offset: number, length: number) => Promise<unknown>;
    // Half of the batch reaches the file before the failure, as with a full disk.
    const spy = vi.spyOn(proto, 'write').mockImplementationOnce(async function (this: FileHandle, ...args: unknown[]) {
      const [buffer, offset, length] = args as [Buffer, number, number];
      await realWrite.call(this, buffer, offset, Math.floor(length / 2));
      throw new Error('disk full');
    } as FileHandle['write']);
    onTestFinished(() => spy.mockRestore());
    const appends = [0, 1, 2].map((n) => store.logs.append<ChainRow>('audit', (head, seq) => chainLink(head, seq, 10 + n)));
    const settled = await Promise.allSettled(appends);
    const failed = { status: 'rejected', reason: expect.objectContaining({ message: 'disk full' }) };
    expect(settled).toEqual([failed, failed, failed]);
    expect((await stat(file)).size).toBe(sizeBefore);
    expect(await store.logs.count('audit')).toBe(3);
    await appendLinks(store, 'audit', 2);
    expectUnbrokenChain(await store.logs.read<ChainRow>('audit'));
  });

  it('reads thousands of large rows back exactly, across index growth and read batching', async () => {
    const { store, reopen } = await lowdb({ fsync: false });
    const pad = 'x'.repeat(900);
    await Promise.all(Array.from({ length: 3000 }, (_, n) => store.logs.append('big', () => ({ tick: n >> 4, type: `t${n % 5}`, n, pad }))));
    const again = await reopen();
    const rows = await again.logs.read<ChainRow>('big');
    expect(rows.map((r) => r.n)).toEqual(Array.from({ length: 3000 }, (_, n) => n));
    const picked = await again.logs.read<ChainRow>('big', { fromTick: 100, toTick: 101, types: ['t2'], reverse: true });
    expect(picked.map((r) => r.n)).toEqual([1627, 1622, 1617, 1612, 1607, 1602]);
  });
});

describe('the lowdb data directory lock', () => {
  it('refuses a second open store on the same directory and frees it on close', async () => {
    const { mkdtemp, rm } = await import('node:fs/promises');
    const os = await import('node:os');
    const path = await import('node:path');
    const { createLowdbStore } = await import('../../src/storage/lowdb/lowdb.store.js');
    const dir = await mkdtemp(path.join(os.tmpdir(), 'core-lock-'));
    try {
      const first = createLowdbStore({ dataDir: dir, fsync: false });
      await first.open();
      // The same process re-opening is how tests reopen; another process is refused: simulate one.
      const { writeFile } = await import('node:fs/promises');
      await first.close();
      await writeFile(path.join(dir, '.lock'), String(process.ppid));
      await expect(createLowdbStore({ dataDir: dir, fsync: false }).open()).rejects.toThrow(/in use by process/);
      await writeFile(path.join(dir, '.lock'), '999999999');
      const third = createLowdbStore({ dataDir: dir, fsync: false });
      await third.open();
      await third.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
