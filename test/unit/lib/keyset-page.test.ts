import { describe, expect, it } from 'vitest';
import { decodeKeyset, keysetPage, MAX_KEYSET_PAGE } from '../../../src/lib/keyset-page.js';
import type { DocPage } from '../../../src/storage/port.js';

/** A store of records 0..n-1 in order, positions their numbers; counts the records it hands out. */
function fakeStore(n: number) {
  const stats = { read: 0 };
  const fetch = async (after: string | undefined, size: number): Promise<DocPage<number>> => {
    const from = after === undefined ? 0 : Number(after) + 1;
    const items = Array.from({ length: Math.max(0, Math.min(size, n - from)) }, (_, i) => from + i);
    stats.read += items.length;
    const last = items.at(-1);
    return { items, positions: items.map(String), ...(last !== undefined && last < n - 1 ? { next: String(last) } : {}) };
  };
  return { fetch, stats };
}

async function walk(n: number, keepIf: (r: number) => boolean, limit: number, scanBudget: number) {
  const { fetch, stats } = fakeStore(n);
  const pages: number[][] = [];
  const reads: number[] = [];
  let cursor: string | undefined;
  do {
    stats.read = 0;
    const page = await keysetPage({ kind: 'test', cursor, limit, fetch, keep: async (rs) => rs.map((r) => (keepIf(r) ? r : undefined)), scanBudget });
    pages.push(page.items);
    reads.push(stats.read);
    cursor = page.next_cursor ?? undefined;
  } while (cursor !== undefined);
  return { pages, reads };
}

describe('keyset pages', () => {
  it('returns full pages while the filter keeps enough, each record once and in order', async () => {
    const { pages } = await walk(100, (r) => r % 2 === 0, 10, 2_000);
    expect(pages.flat()).toEqual(Array.from({ length: 50 }, (_, i) => i * 2));
    expect(pages.slice(0, -1).every((p) => p.length === 10)).toBe(true);
  });

  it('stops a sparse scan at its budget with a short page and a cursor that goes on from there, so no request reads far', async () => {
    const { pages, reads } = await walk(10_000, (r) => r % 3_000 === 0, 2, 500);
    expect(pages.flat()).toEqual([0, 3_000, 6_000, 9_000]);
    expect(pages.some((p) => p.length === 0)).toBe(true);
    expect(Math.max(...reads)).toBeLessThanOrEqual(500 + MAX_KEYSET_PAGE);
  });

  it('hands out cursors that name the list and a store position, refusing those of another list', async () => {
    const { fetch } = fakeStore(10);
    const page = await keysetPage({ kind: 'test', cursor: undefined, limit: 3, fetch, keep: async (rs) => rs });
    expect(decodeKeyset('test', page.next_cursor!)).toBe('2');
    expect(() => decodeKeyset('other', page.next_cursor!)).toThrow(/Invalid cursor/);
    await expect(keysetPage({ kind: 'test', cursor: Buffer.from('offset:5').toString('base64url'), limit: 3, fetch, keep: async (rs) => rs })).rejects.toThrow(
      /Invalid cursor/,
    );
  });
});
