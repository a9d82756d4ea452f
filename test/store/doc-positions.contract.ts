import { describe, expect, it } from 'vitest';
import type { DocPageRequest, DocWhere, Store } from '../../src/storage/port.js';
import { freshStore, type MakeStore } from './store-harness.js';

interface Item {
  id: string;
  kind: string;
  n?: number;
}

const ids = (items: Item[]): string[] => items.map((i) => i.id);

/**
 * Checks that every position of a full read continues right after its record: the records after it
 * in the same order, whole and in pages of 2. Also that the last position of a page equals its `next`.
 */
async function expectPositionsContinue(store: Store, where: DocWhere, request: DocPageRequest, expected: string[]): Promise<void> {
  const all = await store.docs.find<Item>('items', where, { ...request, positions: true });
  expect(ids(all.items)).toEqual(expected);
  expect(all.positions).toHaveLength(expected.length);
  for (const [i, position] of all.positions!.entries()) {
    const rest = await store.docs.find<Item>('items', where, { ...request, after: position, positions: true });
    expect(ids(rest.items)).toEqual(expected.slice(i + 1));
    const page = await store.docs.find<Item>('items', where, { ...request, after: position, limit: 2, positions: true });
    expect(ids(page.items)).toEqual(expected.slice(i + 1, i + 3));
    expect(page.positions).toEqual(all.positions!.slice(i + 1, i + 3));
    if (page.next !== undefined) expect(page.next).toBe(page.positions!.at(-1));
  }
}

/** `find`'s item positions (`positions: true`) and an ordered find's `from`, on every adapter. */
export function describeDocPositionsContract(makeStore: MakeStore): void {
  describe('documents: positions of the records a find returns', () => {
    async function filled(): Promise<Store> {
      const { store } = await freshStore(makeStore);
      const values = [3, 1, 3, undefined, 2, 3, 1, 5, 2];
      for (const [i, n] of values.entries()) {
        const item: Item = { id: `i${i}`, kind: i % 3 === 0 ? 'x' : 'y', ...(n === undefined ? {} : { n }) };
        await store.docs.insert('items', item.id, item);
      }
      // A deleted record and an updated one: positions follow the records that remain, as they are now.
      await store.docs.delete('items', 'i4');
      await store.docs.put('items', 'i1', { id: 'i1', kind: 'y', n: 4 });
      return store;
    }

    it('continues right after any record in insertion order, newest first, with and without field values', async () => {
      const store = await filled();
      await expectPositionsContinue(store, {}, {}, ['i0', 'i1', 'i2', 'i3', 'i5', 'i6', 'i7', 'i8']);
      await expectPositionsContinue(store, { kind: 'y' }, {}, ['i1', 'i2', 'i5', 'i7', 'i8']);
      await expectPositionsContinue(store, {}, { newestFirst: true }, ['i8', 'i7', 'i6', 'i5', 'i3', 'i2', 'i1', 'i0']);
      await expectPositionsContinue(store, { kind: 'x' }, { newestFirst: true }, ['i6', 'i3', 'i0']);
    });

    it('continues right after any record of an ordered find, ties in insertion order both ways', async () => {
      const store = await filled();
      await expectPositionsContinue(store, {}, { orderBy: { field: 'n' } }, ['i6', 'i8', 'i0', 'i2', 'i5', 'i1', 'i7']);
      await expectPositionsContinue(store, {}, { orderBy: { field: 'n', desc: true } }, ['i7', 'i1', 'i5', 'i2', 'i0', 'i8', 'i6']);
      await expectPositionsContinue(store, { kind: 'y' }, { orderBy: { field: 'n', desc: true } }, ['i7', 'i1', 'i5', 'i2', 'i8']);
    });

    it('hands out no positions unless asked, and none for an empty page', async () => {
      const store = await filled();
      expect((await store.docs.find('items', {}, { limit: 2 })).positions).toBeUndefined();
      expect(await store.docs.find('items', { kind: 'none' }, { positions: true })).toEqual({ items: [], positions: [] });
    });

    it('starts an ordered find at a value, every record of that value included, when no cursor is given', async () => {
      const store = await filled();
      const from = async (value: number, desc: boolean, limit?: number) =>
        ids((await store.docs.find<Item>('items', {}, { orderBy: { field: 'n', desc, from: value }, ...(limit === undefined ? {} : { limit }) })).items);
      expect(await from(3, true)).toEqual(['i5', 'i2', 'i0', 'i8', 'i6']);
      expect(await from(3, false)).toEqual(['i0', 'i2', 'i5', 'i1', 'i7']);
      expect(await from(2.5, true, 2)).toEqual(['i8', 'i6']);
      expect(await from(9, true)).toEqual(['i7', 'i1', 'i5', 'i2', 'i0', 'i8', 'i6']);
      expect(await from(9, false)).toEqual([]);
      const first = await store.docs.find<Item>('items', {}, { orderBy: { field: 'n', desc: true, from: 3 }, limit: 2 });
      const next = await store.docs.find<Item>('items', {}, { orderBy: { field: 'n', desc: true, from: 3 }, limit: 10, after: first.next! });
      expect(ids(next.items)).toEqual(['i0', 'i8', 'i6']);
      await expect(store.docs.find('items', {}, { orderBy: { field: 'n', from: Number.NaN } })).rejects.toThrow(TypeError);
    });

    it('stops an ordered find after a value, every record of it included, with no next past the bound', async () => {
      const store = await filled();
      const find = (order: { desc?: boolean; from?: number; to: number }, page: DocPageRequest = {}) =>
        store.docs.find<Item>('items', {}, { orderBy: { field: 'n', ...order }, ...page });
      expect(ids((await find({ desc: true, to: 3 })).items)).toEqual(['i7', 'i1', 'i5', 'i2', 'i0']);
      expect(ids((await find({ to: 3 })).items)).toEqual(['i6', 'i8', 'i0', 'i2', 'i5']);
      expect(ids((await find({ desc: true, from: 3, to: 3 })).items)).toEqual(['i5', 'i2', 'i0']);
      // A page that ends exactly at the bound says nothing more follows.
      expect(await find({ desc: true, to: 3 }, { limit: 5 })).toEqual({ items: expect.any(Array) as unknown });
      const walked: string[] = [];
      let after: string | undefined;
      do {
        const page = await find({ desc: true, to: 3 }, { limit: 2, ...(after === undefined ? {} : { after }) });
        walked.push(...ids(page.items));
        after = page.next;
      } while (after !== undefined);
      expect(walked).toEqual(['i7', 'i1', 'i5', 'i2', 'i0']);
      expect(ids((await store.docs.find<Item>('items', { kind: 'y' }, { orderBy: { field: 'n', desc: true, to: 3 } })).items)).toEqual([
        'i7',
        'i1',
        'i5',
        'i2',
      ]);
      expect((await find({ desc: true, to: 100 })).items).toEqual([]);
      await expect(store.docs.find('items', {}, { orderBy: { field: 'n', to: Infinity } })).rejects.toThrow(TypeError);
    });
  });
}
