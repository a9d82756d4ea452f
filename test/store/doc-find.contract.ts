import { describe, expect, it } from 'vitest';
import { InvalidCursorError, type DocPage, type DocWhere, type Store } from '../../src/storage/port.js';
import { freshStore, type MakeStore } from './store-harness.js';

interface Machine {
  slug: string;
  owner: string;
  public?: boolean;
  size?: number;
  [key: string]: unknown;
}

const slugs = (page: DocPage<Machine>): string[] => page.items.map((m) => m.slug);

/** Every matching record, page by page, and the page sizes seen. */
async function allPages(store: Store, collection: string, where: DocWhere, limit: number): Promise<{ slugs: string[]; sizes: number[] }> {
  const seen: string[] = [];
  const sizes: number[] = [];
  let after: string | undefined;
  do {
    const page = await store.docs.find<Machine>(collection, where, { limit, ...(after === undefined ? {} : { after }) });
    seen.push(...slugs(page));
    sizes.push(page.items.length);
    after = page.next;
  } while (after !== undefined);
  return { slugs: seen, sizes };
}

/** `find` (field equality with pagination) on every adapter. */
export function describeDocFindContract(makeStore: MakeStore): void {
  describe('documents: find by field equality', () => {
    it('returns the records whose fields equal every given value, in insertion order', async () => {
      const { store } = await freshStore(makeStore);
      const rows: Machine[] = [
        { slug: 'c', owner: 'u1', public: true, size: 2 },
        { slug: 'a', owner: 'u2', public: true, size: 2 },
        { slug: 'b', owner: 'u1', public: false, size: 3 },
        { slug: 'd', owner: 'u1', public: true, size: 3 },
      ];
      for (const row of rows) await store.docs.insert('machines', row.slug, row);
      expect(slugs(await store.docs.find<Machine>('machines', { owner: 'u1' }))).toEqual(['c', 'b', 'd']);
      expect(slugs(await store.docs.find<Machine>('machines', { owner: 'u1', public: true }))).toEqual(['c', 'd']);
      expect(slugs(await store.docs.find<Machine>('machines', { size: 3 }))).toEqual(['b', 'd']);
      expect(slugs(await store.docs.find<Machine>('machines', { public: false }))).toEqual(['b']);
      expect(slugs(await store.docs.find<Machine>('machines', {}))).toEqual(['c', 'a', 'b', 'd']);
      expect(await store.docs.find('machines', { owner: 'nobody' })).toEqual({ items: [] });
      expect(await store.docs.find('keys', { owner: 'u1' })).toEqual({ items: [] });
      expect((await store.docs.find<Machine>('machines', { owner: 'u2' })).items).toEqual([{ slug: 'a', owner: 'u2', public: true, size: 2 }]);
    });

    it('matches a value only with its own type, and only top-level strings, numbers and booleans', async () => {
      const { store } = await freshStore(makeStore);
      await store.docs.insert('things', 'num', { slug: 'num', owner: 'x', v: 1 });
      await store.docs.insert('things', 'str', { slug: 'str', owner: 'x', v: '1' });
      await store.docs.insert('things', 'bool', { slug: 'bool', owner: 'x', v: true });
      await store.docs.insert('things', 'arr', { slug: 'arr', owner: 'x', v: [1, '1', true] });
      await store.docs.insert('things', 'obj', { slug: 'obj', owner: 'x', v: { v: 1 }, nested: { owner: 'x' } });
      await store.docs.insert('things', 'nul', { slug: 'nul', owner: 'x', v: null });
      await store.docs.insert('things', 'float', { slug: 'float', owner: 'x', v: 1.5 });
      expect(slugs(await store.docs.find<Machine>('things', { v: 1 }))).toEqual(['num']);
      expect(slugs(await store.docs.find<Machine>('things', { v: '1' }))).toEqual(['str']);
      expect(slugs(await store.docs.find<Machine>('things', { v: true }))).toEqual(['bool']);
      expect(slugs(await store.docs.find<Machine>('things', { v: 1.5 }))).toEqual(['float']);
      expect(slugs(await store.docs.find<Machine>('things', { v: 'true' }))).toEqual([]);
      expect(slugs(await store.docs.find<Machine>('things', { owner: 'x', v: 1 }))).toEqual(['num']);
    });

    it('finds a record by its other fields when one of its strings holds U+0000', async () => {
      const { store } = await freshStore(makeStore);
      await store.docs.insert('notes', 'n1', { slug: 'n1', owner: 'u1', text: 'nul\u0000inside', [`k\u0000`]: 'v' });
      await store.docs.insert('notes', 'n2', { slug: 'n2', owner: 'u1', text: 'plain \\u0000 escape' });
      expect(slugs(await store.docs.find<Machine>('notes', { owner: 'u1' }))).toEqual(['n1', 'n2']);
      expect(slugs(await store.docs.find<Machine>('notes', { text: 'plain \\u0000 escape' }))).toEqual(['n2']);
      await store.docs.insert('notes', 'n3', { slug: 'n3', owner: 'u1', text: 'nul\u0000', tick: 2 });
      await store.docs.insert('notes', 'n4', { slug: 'n4', owner: 'u1', tick: 1 });
      expect(slugs(await store.docs.find<Machine>('notes', { owner: 'u1' }, { orderBy: { field: 'tick' } }))).toEqual(['n4', 'n3']);
    });

    it('pages through the matches with limit and the next cursor, which is absent on the last page', async () => {
      const { store } = await freshStore(makeStore);
      for (let n = 0; n < 23; n++) await store.docs.insert('machines', `m${n}`, { slug: `m${n}`, owner: n % 2 === 0 ? 'even' : 'odd' });
      const even = await allPages(store, 'machines', { owner: 'even' }, 5);
      expect(even.slugs).toEqual(Array.from({ length: 12 }, (_, i) => `m${2 * i}`));
      expect(even.sizes).toEqual([5, 5, 2]);
      const all = await allPages(store, 'machines', {}, 23);
      expect(all.sizes).toEqual([23]);
      const exact = await store.docs.find<Machine>('machines', { owner: 'odd' }, { limit: 11 });
      expect(exact.items).toHaveLength(11);
      expect(exact.next).toBeUndefined();
    });

    it('keeps its answers right through updates, deletes and re-inserts', async () => {
      const { store } = await freshStore(makeStore);
      for (const slug of ['a', 'b', 'c']) await store.docs.insert('machines', slug, { slug, owner: 'u1' });
      expect(slugs(await store.docs.find<Machine>('machines', { owner: 'u1' }))).toEqual(['a', 'b', 'c']);
      await store.docs.update<Machine>('machines', 'b', (m) => m && { ...m, owner: 'u2' });
      await store.docs.put('machines', 'a', { slug: 'a', owner: 'u2' });
      expect(slugs(await store.docs.find<Machine>('machines', { owner: 'u1' }))).toEqual(['c']);
      expect(slugs(await store.docs.find<Machine>('machines', { owner: 'u2' }))).toEqual(['a', 'b']);
      await store.docs.delete('machines', 'a');
      await store.docs.deleteIf<Machine>('machines', 'c', (m) => m.owner === 'u1');
      await store.docs.update<Machine>('machines', 'b', (m) => m && { slug: 'b', owner: 'u1' });
      await store.docs.insert('machines', 'a', { slug: 'a', owner: 'u1' });
      expect(slugs(await store.docs.find<Machine>('machines', { owner: 'u1' }))).toEqual(['b', 'a']);
      expect(slugs(await store.docs.find<Machine>('machines', { owner: 'u2' }))).toEqual([]);
      expect(slugs(await store.docs.find<Machine>('machines', {}))).toEqual(['b', 'a']);
    });

    it('continues from a cursor after its record was deleted, and after a restart', async () => {
      const { store, reopen } = await freshStore(makeStore);
      for (let n = 0; n < 6; n++) await store.docs.insert('machines', `m${n}`, { slug: `m${n}`, owner: 'u1' });
      const first = await store.docs.find<Machine>('machines', { owner: 'u1' }, { limit: 2 });
      expect(slugs(first)).toEqual(['m0', 'm1']);
      await store.docs.delete('machines', 'm1');
      await store.docs.insert('machines', 'm6', { slug: 'm6', owner: 'u1' });
      const second = await store.docs.find<Machine>('machines', { owner: 'u1' }, { limit: 2, after: first.next! });
      expect(slugs(second)).toEqual(['m2', 'm3']);
      const again = await reopen();
      const third = await again.docs.find<Machine>('machines', { owner: 'u1' }, { limit: 2, after: second.next! });
      expect(slugs(third)).toEqual(['m4', 'm5']);
      const last = await again.docs.find<Machine>('machines', { owner: 'u1' }, { limit: 2, after: third.next! });
      expect(last).toEqual({ items: [{ slug: 'm6', owner: 'u1' }] });
    });

    it('hands out copies', async () => {
      const { store } = await freshStore(makeStore);
      await store.docs.insert('machines', 'a', { slug: 'a', owner: 'u1', tags: ['x'] });
      const found = await store.docs.find<Machine & { tags: string[] }>('machines', { owner: 'u1' });
      found.items[0]!.tags.push('changed');
      found.items[0]!.owner = 'u2';
      expect(await store.docs.get('machines', 'a')).toEqual({ slug: 'a', owner: 'u1', tags: ['x'] });
      expect(slugs(await store.docs.find<Machine>('machines', { owner: 'u1' }))).toEqual(['a']);
    });

    it('refuses values it cannot match, a limit that is not a positive integer and a cursor it never gave', async () => {
      const { store } = await freshStore(makeStore);
      await store.docs.insert('machines', 'a', { slug: 'a', owner: 'u1' });
      for (const where of [{ owner: 'a\u0000b' }, { size: Number.NaN }, { size: Infinity }, { owner: null }, { owner: { x: 1 } }, { owner: ['u1'] }]) {
        await expect(store.docs.find('machines', where as unknown as DocWhere)).rejects.toThrow(TypeError);
      }
      for (const limit of [0, -1, 1.5]) await expect(store.docs.find('machines', {}, { limit })).rejects.toThrow(/limit must be a positive integer/);
      for (const after of ['', 'garbage', '-1', '1.5']) {
        await expect(store.docs.find('machines', { owner: 'u1' }, { after })).rejects.toBeInstanceOf(InvalidCursorError);
      }
    });

    it('orders by a numeric field when asked, ties in insertion order, and leaves out records without a number there', async () => {
      const { store } = await freshStore(makeStore);
      const rows: Machine[] = [
        { slug: 'a', owner: 'u1', public: true, tick: 5 },
        { slug: 'b', owner: 'u1', public: true, tick: 2 },
        { slug: 'c', owner: 'u1', public: false, tick: 9 },
        { slug: 'd', owner: 'u2', public: true, tick: 5 },
        { slug: 'e', owner: 'u1', public: true, tick: '7' },
        { slug: 'f', owner: 'u1', public: true },
        { slug: 'g', owner: 'u1', public: true, tick: -1.5 },
      ];
      for (const row of rows) await store.docs.insert('machines', row.slug, row);
      const byTick = (where: DocWhere, desc: boolean) => store.docs.find<Machine>('machines', where, { orderBy: { field: 'tick', desc } });
      expect(slugs(await byTick({}, false))).toEqual(['g', 'b', 'a', 'd', 'c']);
      expect(slugs(await byTick({}, true))).toEqual(['c', 'd', 'a', 'b', 'g']);
      expect(slugs(await byTick({ public: true }, true))).toEqual(['d', 'a', 'b', 'g']);
      expect(slugs(await byTick({ public: true, owner: 'u1' }, false))).toEqual(['g', 'b', 'a']);
      expect(await byTick({ owner: 'nobody' }, true)).toEqual({ items: [] });
      expect(await store.docs.find('machines', {}, { orderBy: { field: 'absent' } })).toEqual({ items: [] });
    });

    it('pages an ordered find by position, and keeps the order right through updates and deletes', async () => {
      const { store, reopen } = await freshStore(makeStore);
      for (let n = 0; n < 10; n++) await store.docs.insert('machines', `m${n}`, { slug: `m${n}`, owner: 'u1', tick: n % 4 });
      const pageOf = async (s: Store, after?: string) =>
        s.docs.find<Machine>('machines', { owner: 'u1' }, { limit: 3, orderBy: { field: 'tick', desc: true }, ...(after === undefined ? {} : { after }) });
      const first = await pageOf(store);
      expect(slugs(first)).toEqual(['m7', 'm3', 'm6']);
      await store.docs.update<Machine>('machines', 'm2', (m) => m && { ...m, tick: 1 });
      await store.docs.delete('machines', 'm6');
      await store.docs.update<Machine>('machines', 'm9', (m) => m && { ...m, owner: 'u2' });
      const again = await reopen();
      const second = await pageOf(again, first.next!);
      expect(slugs(second)).toEqual(['m5', 'm2', 'm1']);
      const third = await pageOf(again, second.next!);
      expect(slugs(third)).toEqual(['m8', 'm4', 'm0']);
      expect(third.next).toBeUndefined();
      await again.docs.put('machines', 'm0', { slug: 'm0', owner: 'u1', tick: 100 });
      expect(slugs(await again.docs.find<Machine>('machines', {}, { limit: 2, orderBy: { field: 'tick', desc: true } }))).toEqual(['m0', 'm7']);
      const asc = await again.docs.find<Machine>('machines', { owner: 'u1' }, { limit: 4, orderBy: { field: 'tick' } });
      expect(slugs(asc)).toEqual(['m4', 'm8', 'm1', 'm2']);
      const rest = await again.docs.find<Machine>('machines', { owner: 'u1' }, { limit: 4, orderBy: { field: 'tick' }, after: asc.next! });
      expect(slugs(rest)).toEqual(['m5', 'm3', 'm7', 'm0']);
    });

    it('orders many equal values by insertion order, numerically, also across pages', async () => {
      const { store } = await freshStore(makeStore);
      const names = Array.from({ length: 12 }, (_, n) => `m${n}`);
      for (const slug of names) await store.docs.insert('machines', slug, { slug, owner: 'u1', tick: 7 });
      const desc = await store.docs.find<Machine>('machines', {}, { orderBy: { field: 'tick', desc: true } });
      expect(slugs(desc)).toEqual([...names].reverse());
      const first = await store.docs.find<Machine>('machines', {}, { limit: 5, orderBy: { field: 'tick' } });
      const rest = await store.docs.find<Machine>('machines', {}, { orderBy: { field: 'tick' }, after: first.next! });
      expect([...slugs(first), ...slugs(rest)]).toEqual(names);
    });

    it('refuses an order field that is not a plain name, and a cursor of another order', async () => {
      const { store } = await freshStore(makeStore);
      await store.docs.insert('machines', 'a', { slug: 'a', owner: 'u1', tick: 1 });
      await store.docs.insert('machines', 'b', { slug: 'b', owner: 'u1', tick: 2 });
      for (const field of ["tick'", 'a b', '', '1x']) {
        await expect(store.docs.find('machines', {}, { orderBy: { field } })).rejects.toThrow(TypeError);
      }
      const plain = await store.docs.find('machines', {}, { limit: 1 });
      await expect(store.docs.find('machines', {}, { orderBy: { field: 'tick' }, after: plain.next! })).rejects.toBeInstanceOf(InvalidCursorError);
    });

    it('counts the records matching field values', async () => {
      const { store } = await freshStore(makeStore);
      for (let n = 0; n < 7; n++) await store.docs.insert('machines', `m${n}`, { slug: `m${n}`, owner: n < 3 ? 'u1' : 'u2', public: n % 2 === 0 });
      expect(await store.docs.count('machines')).toBe(7);
      expect(await store.docs.count('machines', {})).toBe(7);
      expect(await store.docs.count('machines', { owner: 'u2' })).toBe(4);
      expect(await store.docs.count('machines', { owner: 'u2', public: true })).toBe(2);
      expect(await store.docs.count('machines', { owner: 'nobody' })).toBe(0);
      await expect(store.docs.count('machines', { owner: 'a\u0000' })).rejects.toThrow(TypeError);
    });

    it('pages a rare value through a long collection both ways, also where matches lie far apart', async () => {
      const { store } = await freshStore(makeStore);
      // 700 records, 5 of them owned by u1 and far apart: a page of them is not found among the first few hundred.
      const owned = new Set([3, 40, 400, 650, 699]);
      for (let n = 0; n < 700; n++)
        await store.docs.insert('machines', `m${n}`, { slug: `m${n}`, owner: owned.has(n) ? 'u1' : `u${n + 2}`, public: n % 2 === 0 });
      const expected = [...owned].map((n) => `m${n}`);
      expect(await allPages(store, 'machines', { owner: 'u1' }, 2)).toEqual({ slugs: expected, sizes: [2, 2, 1] });
      const newest: string[] = [];
      let after: string | undefined;
      do {
        const page = await store.docs.find<Machine>('machines', { owner: 'u1' }, { limit: 1, newestFirst: true, ...(after === undefined ? {} : { after }) });
        newest.push(...slugs(page));
        after = page.next;
      } while (after !== undefined);
      expect(newest).toEqual([...expected].reverse());
      expect((await allPages(store, 'machines', { public: true }, 100)).sizes).toEqual([100, 100, 100, 50]);
      expect(await store.docs.count('machines', { public: true })).toBe(350);
    });

    it('pages newest first when asked, with or without field values, and continues from a cursor whose record was deleted', async () => {
      const { store } = await freshStore(makeStore);
      for (const [n, slug] of ['e', 'a', 'd', 'b', 'c'].entries()) await store.docs.insert('machines', slug, { slug, owner: n % 2 === 0 ? 'u1' : 'u2' });
      const first = await store.docs.find<Machine>('machines', {}, { newestFirst: true, limit: 2 });
      expect(slugs(first)).toEqual(['c', 'b']);
      await store.docs.delete('machines', 'b');
      const rest = await store.docs.find<Machine>('machines', {}, { newestFirst: true, after: first.next! });
      expect(rest).toEqual({ items: [expect.objectContaining({ slug: 'd' }), expect.objectContaining({ slug: 'a' }), expect.objectContaining({ slug: 'e' })] });
      const owned = await store.docs.find<Machine>('machines', { owner: 'u1' }, { newestFirst: true, limit: 2 });
      expect(slugs(owned)).toEqual(['c', 'd']);
      expect(slugs(await store.docs.find<Machine>('machines', { owner: 'u1' }, { newestFirst: true, after: owned.next! }))).toEqual(['e']);
      await expect(store.docs.find('machines', {}, { newestFirst: true, orderBy: { field: 'size' } })).rejects.toThrow(TypeError);
    });
  });
}
