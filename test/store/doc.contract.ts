import { describe, expect, it } from 'vitest';
import { DuplicateKeyError } from '../../src/storage/port.js';
import { freshStore, type MakeStore } from './store-harness.js';

interface Counter {
  name: string;
  n: number;
}

/** Document behaviour every adapter must have. */
export function describeDocContract(makeStore: MakeStore): void {
  describe('documents', () => {
    it('returns an inserted record, and undefined for an id that was never inserted', async () => {
      const { store } = await freshStore(makeStore);
      await store.docs.insert('machines', 'm1', { name: 'one', n: 1 });
      expect(await store.docs.get<Counter>('machines', 'm1')).toEqual({ name: 'one', n: 1 });
      expect(await store.docs.get('machines', 'm2')).toBeUndefined();
      expect(await store.docs.get('other', 'm1')).toBeUndefined();
    });

    it('rejects inserting an existing id with DuplicateKeyError and keeps the first record', async () => {
      const { store } = await freshStore(makeStore);
      await store.docs.insert('machines', 'm1', { name: 'first', n: 1 });
      const error = await store.docs.insert('machines', 'm1', { name: 'second', n: 2 }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DuplicateKeyError);
      expect(error).toMatchObject({ collection: 'machines', id: 'm1' });
      expect(await store.docs.get('machines', 'm1')).toEqual({ name: 'first', n: 1 });
    });

    it('put inserts a missing record and replaces an existing one without moving it', async () => {
      const { store } = await freshStore(makeStore);
      await store.docs.put('machines', 'a', { name: 'a', n: 1 });
      await store.docs.put('machines', 'b', { name: 'b', n: 1 });
      await store.docs.put('machines', 'a', { name: 'a', n: 2 });
      expect(await store.docs.list('machines')).toEqual([
        { name: 'a', n: 2 },
        { name: 'b', n: 1 },
      ]);
    });

    it('update passes the current record to fn, stores what fn returns and returns it', async () => {
      const { store } = await freshStore(makeStore);
      await store.docs.insert('counters', 'c', { name: 'c', n: 1 });
      const seen: unknown[] = [];
      const after = await store.docs.update<Counter>('counters', 'c', (current) => {
        seen.push(current);
        return { name: 'c', n: (current?.n ?? 0) + 1 };
      });
      expect(seen).toEqual([{ name: 'c', n: 1 }]);
      expect(after).toEqual({ name: 'c', n: 2 });
      expect(await store.docs.get('counters', 'c')).toEqual({ name: 'c', n: 2 });
    });

    it('update creates a missing record when fn returns a value for undefined', async () => {
      const { store } = await freshStore(makeStore);
      const after = await store.docs.update<Counter>('counters', 'new', (current) => current ?? { name: 'new', n: 0 });
      expect(after).toEqual({ name: 'new', n: 0 });
      expect(await store.docs.count('counters')).toBe(1);
    });

    it('update that returns undefined leaves the record as it was and creates nothing', async () => {
      const { store } = await freshStore(makeStore);
      await store.docs.insert('counters', 'c', { name: 'c', n: 5 });
      const kept = await store.docs.update<Counter>('counters', 'c', (current) => {
        if (current) current.n = 99;
        return undefined;
      });
      expect(kept).toEqual({ name: 'c', n: 5 });
      expect(await store.docs.get('counters', 'c')).toEqual({ name: 'c', n: 5 });
      expect(await store.docs.update('counters', 'missing', () => undefined)).toBeUndefined();
      expect(await store.docs.count('counters')).toBe(1);
    });

    it('applies every one of 100 parallel increments of one record', async () => {
      const { store } = await freshStore(makeStore);
      await store.docs.insert('counters', 'c', { name: 'c', n: 0 });
      const increment = (current: Counter | undefined): Counter => ({ name: 'c', n: (current?.n ?? 0) + 1 });
      await Promise.all(Array.from({ length: 100 }, () => store.docs.update('counters', 'c', increment)));
      expect(await store.docs.get('counters', 'c')).toEqual({ name: 'c', n: 100 });
    });

    it('delete removes a record and reports whether there was one', async () => {
      const { store } = await freshStore(makeStore);
      await store.docs.insert('machines', 'm1', { name: 'one', n: 1 });
      expect(await store.docs.delete('machines', 'm1')).toBe(true);
      expect(await store.docs.get('machines', 'm1')).toBeUndefined();
      expect(await store.docs.delete('machines', 'm1')).toBe(false);
      expect(await store.docs.count('machines')).toBe(0);
    });

    it('deleteIf deletes a record only when it matches as stored, never one replaced in between', async () => {
      const { store } = await freshStore(makeStore);
      await store.docs.insert('locks', 'e1', { name: 'vote', n: 1 });
      expect(await store.docs.deleteIf<Counter>('locks', 'e1', (c) => c.n === 2)).toBe(false);
      expect(await store.docs.get('locks', 'e1')).toEqual({ name: 'vote', n: 1 });
      expect(await store.docs.deleteIf<Counter>('locks', 'missing', () => true)).toBe(false);
      // An update queued before the compare-and-delete is what the predicate sees.
      const [, deleted] = await Promise.all([
        store.docs.update<Counter>('locks', 'e1', (c) => c && { ...c, n: 2 }),
        store.docs.deleteIf<Counter>('locks', 'e1', (c) => c.n === 1),
      ]);
      expect(deleted).toBe(false);
      expect(await store.docs.get('locks', 'e1')).toEqual({ name: 'vote', n: 2 });
      expect(await store.docs.deleteIf<Counter>('locks', 'e1', (c) => c.n === 2)).toBe(true);
      expect(await store.docs.get('locks', 'e1')).toBeUndefined();
      expect(await store.docs.count('locks')).toBe(0);
    });

    it('lists records in insertion order, and only those the filter accepts', async () => {
      const { store } = await freshStore(makeStore);
      for (const [id, n] of [
        ['zeta', 1],
        ['alpha', 2],
        ['mid', 3],
        ['beta', 4],
      ] as const) {
        await store.docs.insert('machines', id, { name: id, n });
      }
      const names = (records: Counter[]): string[] => records.map((r) => r.name);
      expect(names(await store.docs.list<Counter>('machines'))).toEqual(['zeta', 'alpha', 'mid', 'beta']);
      expect(names(await store.docs.list<Counter>('machines', (r) => r.n % 2 === 0))).toEqual(['alpha', 'beta']);
      expect(await store.docs.list('empty')).toEqual([]);
    });

    it('counts the records of each collection separately; an unknown collection has none', async () => {
      const { store } = await freshStore(makeStore);
      await store.docs.insert('machines', 'x', { name: 'x', n: 1 });
      await store.docs.insert('machines', 'y', { name: 'y', n: 1 });
      await store.docs.insert('keys', 'x', { name: 'key', n: 1 });
      expect(await store.docs.count('machines')).toBe(2);
      expect(await store.docs.count('keys')).toBe(1);
      expect(await store.docs.count('nothing')).toBe(0);
      expect(await store.docs.get('keys', 'x')).toEqual({ name: 'key', n: 1 });
    });

    it('hands out copies: mutating an inserted or returned value does not change the stored record', async () => {
      const { store } = await freshStore(makeStore);
      const value = { name: 'a', n: 1, tags: ['x'] };
      await store.docs.insert('machines', 'a', value);
      value.tags.push('changed');
      const got = await store.docs.get<typeof value>('machines', 'a');
      got!.n = 42;
      (await store.docs.list<typeof value>('machines'))[0]!.tags.push('again');
      expect(await store.docs.get('machines', 'a')).toEqual({ name: 'a', n: 1, tags: ['x'] });
    });

    it('accepts any string as an id, including __proto__, constructor and path-like ids', async () => {
      const { store } = await freshStore(makeStore);
      const ids = ['__proto__', 'constructor', '../../etc/passwd', 'a/b:c', 'ünï cødé', ''];
      for (const [n, id] of ids.entries()) await store.docs.insert('odd', id, { name: id, n });
      for (const [n, id] of ids.entries()) expect(await store.docs.get('odd', id)).toEqual({ name: id, n });
      expect(await store.docs.count('odd')).toBe(ids.length);
      expect(await store.docs.get('odd', 'toString')).toBeUndefined();
    });
  });
}
