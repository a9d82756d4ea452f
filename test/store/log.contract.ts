import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { LastOfTypeMovedError, type LogRow, type RowInput, type Store } from '../../src/storage/port.js';
import { freshStore, type MakeStore } from './store-harness.js';

/** A tiny hash chain: each row links to the hash of the row before it. */
export interface ChainRow extends LogRow {
  n: number;
  prev: string | null;
  hash: string;
}

export function chainLink(head: ChainRow | undefined, seq: number, n: number, tick = seq): RowInput<ChainRow> {
  const prev = head?.hash ?? null;
  const hash = createHash('sha256').update(`${prev}|${seq}|${n}`).digest('hex');
  return { tick, type: 'link', n, prev, hash };
}

/** Checks that `rows` are seqs 0..n-1 and each one's `prev` is the hash of the one before. */
export function expectUnbrokenChain(rows: ChainRow[]): void {
  rows.forEach((row, i) => {
    expect(row.seq).toBe(i);
    expect(row.prev).toBe(i === 0 ? null : rows[i - 1]!.hash);
    expect(row.hash).toBe(createHash('sha256').update(`${row.prev}|${row.seq}|${row.n}`).digest('hex'));
  });
}

/** Appends `count` chain links to `stream`, numbering them on from the rows already there. */
export async function appendLinks(store: Store, stream: string, count: number): Promise<ChainRow[]> {
  const start = await store.logs.count(stream);
  const rows: ChainRow[] = [];
  for (let n = start; n < start + count; n++) rows.push(await store.logs.append<ChainRow>(stream, (head, seq) => chainLink(head, seq, n)));
  return rows;
}

/** Append, head, count, get and streams behaviour every adapter must have. */
export function describeLogContract(makeStore: MakeStore): void {
  describe('logs', () => {
    it('assigns gap-free seqs from 0 and gives build the head row and the seq the row will get', async () => {
      const { store } = await freshStore(makeStore);
      const seen: Array<[number | undefined, number]> = [];
      for (let n = 0; n < 5; n++) {
        const row = await store.logs.append<ChainRow>('audit', (head, seq) => {
          seen.push([head?.seq, seq]);
          return chainLink(head, seq, n);
        });
        expect(row).toMatchObject({ seq: n, n, type: 'link', tick: n });
      }
      expect(seen).toEqual([
        [undefined, 0],
        [0, 1],
        [1, 2],
        [2, 3],
        [3, 4],
      ]);
      expect(await store.logs.count('audit')).toBe(5);
    });

    it('links 200 parallel appends to one stream into an unbroken hash chain', async () => {
      const { store } = await freshStore(makeStore);
      const appended = await Promise.all(Array.from({ length: 200 }, (_, n) => store.logs.append<ChainRow>('chain/m', (head, seq) => chainLink(head, seq, n))));
      expect(new Set(appended.map((row) => row.seq)).size).toBe(200);
      expect(await store.logs.count('chain/m')).toBe(200);
      const rows = await store.logs.read<ChainRow>('chain/m');
      expectUnbrokenChain(rows);
      expect(rows.map((row) => row.n).sort((a, b) => a - b)).toEqual(Array.from({ length: 200 }, (_, n) => n));
    });

    it('answers for an unknown stream with no head, no rows and a count of 0', async () => {
      const { store } = await freshStore(makeStore);
      expect(await store.logs.head('nothing/here')).toBeUndefined();
      expect(await store.logs.count('nothing/here')).toBe(0);
      expect(await store.logs.get('nothing/here', 0)).toBeUndefined();
      expect(await store.logs.read('nothing/here')).toEqual([]);
      expect(await store.logs.streams()).toEqual([]);
    });

    it('returns the last row as head and any row by seq, and undefined outside the stream', async () => {
      const { store } = await freshStore(makeStore);
      const rows = await appendLinks(store, 'audit', 4);
      expect(await store.logs.head('audit')).toEqual(rows[3]);
      expect(await store.logs.get('audit', 0)).toEqual(rows[0]);
      expect(await store.logs.get('audit', 2)).toEqual(rows[2]);
      expect(await store.logs.get('audit', 4)).toBeUndefined();
      expect(await store.logs.get('audit', -1)).toBeUndefined();
      expect(await store.logs.get('audit', 1.5)).toBeUndefined();
    });

    it('stores every field build returns and sets seq itself', async () => {
      const { store } = await freshStore(makeStore);
      const payload = { tick: 7, type: 'event', nested: { list: [1, 'two', null], text: 'line\nbreak "quoted"' } };
      const row = await store.logs.append('events', () => ({ ...payload, seq: 99 }));
      expect(row).toEqual({ ...payload, seq: 0 });
      expect(await store.logs.get('events', 0)).toEqual({ ...payload, seq: 0 });
    });

    it('rejects an append whose build throws and leaves the stream as it was', async () => {
      const { store } = await freshStore(makeStore);
      await appendLinks(store, 'audit', 2);
      await expect(
        store.logs.append('audit', () => {
          throw new Error('refused');
        }),
      ).rejects.toThrow('refused');
      const next = await store.logs.append<ChainRow>('audit', (head, seq) => chainLink(head, seq, 2));
      expect(next.seq).toBe(2);
      expectUnbrokenChain(await store.logs.read<ChainRow>('audit'));
    });

    it('stores an append expecting its type’s last row only while that row is still the last of its type', async () => {
      const { store } = await freshStore(makeStore);
      const row = (type: string) => () => ({ tick: 1, type });
      const first = await store.logs.append('mixed', row('a'), { type: 'a', lastSeq: -1 });
      // Rows of other types in between do not matter: only a newer row of the same type does.
      await Promise.all([store.logs.append('mixed', row('b')), store.logs.append('mixed', row('c'))]);
      const second = await store.logs.append('mixed', row('a'), { type: 'a', lastSeq: first.seq });
      expect(second.seq).toBe(3);
      const stale = store.logs.append('mixed', row('a'), { type: 'a', lastSeq: first.seq });
      await expect(stale).rejects.toBeInstanceOf(LastOfTypeMovedError);
      await expect(store.logs.append('mixed', row('b'), { type: 'b', lastSeq: -1 })).rejects.toMatchObject({
        stream: 'mixed',
        expect: { type: 'b', lastSeq: -1 },
      });
      expect((await store.logs.read('mixed')).map((r) => r.type)).toEqual(['a', 'b', 'c', 'a']);
    });

    it('of appends made at once with the same expectation stores one, also inside a lock’s work', async () => {
      const { store } = await freshStore(makeStore);
      const offer = (n: number) => store.logs.append('raced', () => ({ tick: n, type: 'x', n }), { type: 'x', lastSeq: -1 });
      const outcomes = await Promise.allSettled([offer(0), offer(1), offer(2), store.logs.append('raced', () => ({ tick: 3, type: 'y' }))]);
      expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled']);
      const locked = await store.locks.run('raced-lock', async () => {
        const [last] = await store.logs.read('raced', { types: ['x'], reverse: true, limit: 1 });
        const kept = await store.logs.append('raced', () => ({ tick: 4, type: 'x' }), { type: 'x', lastSeq: last!.seq });
        await expect(store.logs.append('raced', () => ({ tick: 5, type: 'x' }), { type: 'x', lastSeq: last!.seq })).rejects.toBeInstanceOf(
          LastOfTypeMovedError,
        );
        return kept.seq;
      });
      expect(locked).toBe(2);
      expect((await store.logs.read('raced')).map((r) => [r.seq, r.type])).toEqual([
        [0, 'x'],
        [1, 'y'],
        [2, 'x'],
      ]);
    });

    it('keeps streams apart: each has its own seqs and head', async () => {
      const { store } = await freshStore(makeStore);
      await appendLinks(store, 'chain/a', 3);
      await appendLinks(store, 'chain/b', 1);
      expect(await store.logs.count('chain/a')).toBe(3);
      expect(await store.logs.count('chain/b')).toBe(1);
      expect((await store.logs.head<ChainRow>('chain/b'))?.seq).toBe(0);
    });

    it('lists the streams that have rows, optionally only those starting with a prefix', async () => {
      const { store } = await freshStore(makeStore);
      for (const stream of ['chain/my-machine', 'chain/other', 'audit:platform', 'Chain/Upper']) await appendLinks(store, stream, 1);
      await store.logs.head('chain/never-written');
      expect((await store.logs.streams()).sort()).toEqual(['Chain/Upper', 'audit:platform', 'chain/my-machine', 'chain/other']);
      expect((await store.logs.streams('chain/')).sort()).toEqual(['chain/my-machine', 'chain/other']);
      expect(await store.logs.streams('nope')).toEqual([]);
    });
  });
}
