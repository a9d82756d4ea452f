import { describe, expect, it } from 'vitest';
import type { LogQuery, LogRow, Store } from '../../src/storage/port.js';
import { freshStore, type MakeStore } from './store-harness.js';

interface Row extends LogRow {
  n: number;
}

/** What `read` must return, computed the slow obvious way. */
function expected(rows: Row[], q: LogQuery): Row[] {
  const picked = rows.filter(
    (r) =>
      (q.fromSeq === undefined || r.seq >= q.fromSeq) &&
      (q.toSeq === undefined || r.seq <= q.toSeq) &&
      (q.fromTick === undefined || r.tick >= q.fromTick) &&
      (q.toTick === undefined || r.tick <= q.toTick) &&
      (q.types === undefined || q.types.includes(r.type)),
  );
  if (q.reverse === true) picked.reverse();
  return q.limit === undefined ? picked : picked.slice(0, q.limit);
}

async function fill(store: Store, stream: string, ticks: number[]): Promise<Row[]> {
  const rows: Row[] = [];
  for (const [n, tick] of ticks.entries()) {
    rows.push(await store.logs.append<Row>(stream, () => ({ tick, type: ['a', 'b', 'c'][n % 3]!, n })));
  }
  return rows;
}

const queries: Array<[string, LogQuery]> = [
  ['every row in seq order when the query is empty', {}],
  ['rows from fromSeq to toSeq, both inclusive', { fromSeq: 5, toSeq: 9 }],
  ['nothing when fromSeq is past the end', { fromSeq: 500 }],
  ['rows from fromTick to toTick, both inclusive', { fromTick: 3, toTick: 5 }],
  ['rows up to toTick', { toTick: 0 }],
  ['rows from a fromTick that falls between two ticks', { fromTick: 2.5 }],
  ['only rows of one type', { types: ['b'] }],
  ['only rows of several types', { types: ['a', 'c'] }],
  ['nothing for a type no row has', { types: ['nope'] }],
  ['every row newest first with reverse', { reverse: true }],
  ['the newest rows only with reverse and limit', { reverse: true, limit: 3 }],
  ['the oldest rows only with limit', { limit: 4 }],
  ['nothing with limit 0', { limit: 0 }],
  [
    'rows matching seq, tick and type bounds together, newest first, limited',
    {
      fromSeq: 2,
      toSeq: 17,
      fromTick: 2,
      toTick: 7,
      types: ['a', 'b'],
      reverse: true,
      limit: 4,
    },
  ],
];

/** `read` query behaviour every adapter must have. */
export function describeLogQueryContract(makeStore: MakeStore): void {
  describe('log reads', () => {
    const ordered = Array.from({ length: 20 }, (_, seq) => Math.floor(seq / 2));
    it.each(queries)('reads %s', async (_, query) => {
      const { store } = await freshStore(makeStore);
      const rows = await fill(store, 'q', ordered);
      expect(await store.logs.read<Row>('q', query)).toEqual(expected(rows, query));
    });

    it('answers tick queries correctly even when ticks go backwards', async () => {
      const { store } = await freshStore(makeStore);
      const rows = await fill(store, 'q', [5, 3, 8, 1, 9, 3, 3, 0, 7, 2, 6, 4]);
      for (const query of [
        { fromTick: 3, toTick: 7 },
        { fromTick: 3 },
        { toTick: 3, reverse: true },
        { fromTick: 2, toTick: 8, types: ['a', 'b'], limit: 3 },
        { fromTick: 1, toTick: 6, fromSeq: 2, toSeq: 10, reverse: true, limit: 2 },
      ]) {
        expect(await store.logs.read<Row>('q', query)).toEqual(expected(rows, query));
      }
    });

    /** What `tally` must report for one stream, computed from `read`. */
    async function expectedTally(store: Store, stream: string, fromTick: number) {
      const rows = await store.logs.read<Row>(stream, { fromTick });
      return rows.length === 0 ? undefined : { rows: rows.length, lastTick: Math.max(...rows.map((r) => r.tick)) };
    }

    it('tallies the rows since a tick across streams, leaving out streams without any', async () => {
      const { store } = await freshStore(makeStore);
      await fill(store, 'm/a', ordered);
      await fill(store, 'm/b', [0, 0, 1, 1, 1]);
      await fill(store, 'm/c', [5, 3, 8, 1, 9, 3, 3, 0, 7, 2, 6, 4]);
      const streams = ['m/a', 'm/b', 'm/c', 'm/none', 'm/a'];
      for (const fromTick of [0, 1, 2.5, 4, 9, 10]) {
        const tallies = await store.logs.tally(streams, fromTick);
        const want = new Map<string, unknown>();
        for (const stream of ['m/a', 'm/b', 'm/c']) {
          const tally = await expectedTally(store, stream, fromTick);
          if (tally !== undefined) want.set(stream, tally);
        }
        expect(tallies).toEqual(want);
      }
      expect(await store.logs.tally([], 0)).toEqual(new Map());
    });

    it('answers heads and counts asked for together as each asked alone, empty streams included', async () => {
      const { store } = await freshStore(makeStore);
      await fill(store, 'h/a', ordered);
      await fill(store, 'h/b', [1]);
      const streams = ['h/a', 'h/b', 'h/none', 'h/a'];
      const alone = [];
      for (const s of streams) alone.push({ head: await store.logs.head<Row>(s), count: await store.logs.count(s) });
      const together = await Promise.all(
        streams.map(async (s) => {
          const [head, count] = await Promise.all([store.logs.head<Row>(s), store.logs.count(s)]);
          return { head, count };
        }),
      );
      expect(together).toEqual(alone);
      expect(together.map((t) => t.count)).toEqual([20, 1, 0, 20]);
      expect(together[0]!.head?.seq).toBe(19);
      expect(together[2]!.head).toBeUndefined();
    });

    it('counts the rows of every stream under a prefix', async () => {
      const { store } = await freshStore(makeStore);
      await fill(store, 'chain/a', ordered);
      await fill(store, 'chain/b', [1, 2, 3]);
      await fill(store, 'chainx', [1]);
      await fill(store, 'other/c', [1, 2]);
      expect(await store.logs.countUnder('chain/')).toBe(23);
      expect(await store.logs.countUnder('chain')).toBe(24);
      expect(await store.logs.countUnder('none/')).toBe(0);
      expect(await store.logs.countUnder('')).toBe(26);
    });
  });
}
