import type { DocStore, DocWhere } from './port.js';

/** Most records read per ordered page while looking for the top ones (the first page holds `limit + 1`, each next one twice as many). */
const MAX_PAGE = 400;

/**
 * The first `limit` records by `compare`, where `compare` sorts by `field` (highest first) and then
 * breaks ties by other means: read from the ordered index highest first, a page at a time, until `limit`
 * records that `keep` accepts are in hand and the next one holds a lower value, so every record tied
 * with the last one kept is seen before the exact sort. Reads about `limit` records (plus ties and the
 * ones `keep` refuses), never the collection. `keep` may look records up (it is awaited). Records
 * `compare` finds equal come in insertion order.
 */
export async function topByField<T extends Record<string, unknown>>(
  docs: DocStore,
  collection: string,
  where: DocWhere,
  field: string,
  limit: number,
  compare: (a: T, b: T) => number,
  keep: (records: T[]) => Promise<boolean[]> = async (records) => records.map(() => true),
): Promise<T[]> {
  const kept: T[] = [];
  // Read highest first and, among equal values, latest inserted first: reversed, a stable sort keeps insertion order for ties.
  const finish = (): T[] => kept.reverse().sort(compare).slice(0, limit);
  let after: string | undefined;
  let size = Math.min(limit + 1, MAX_PAGE);
  for (;;) {
    const page = await docs.find<T>(collection, where, { limit: size, orderBy: { field, desc: true }, ...(after === undefined ? {} : { after }) });
    size = Math.min(size * 2, MAX_PAGE);
    const wanted = await keep(page.items);
    for (const [i, record] of page.items.entries()) {
      const boundary = kept.length >= limit ? (kept[limit - 1]![field] as number) : undefined;
      if (boundary !== undefined && (record[field] as number) < boundary) return finish();
      if (wanted[i]) kept.push(record);
    }
    if (page.next === undefined) return finish();
    after = page.next;
  }
}
