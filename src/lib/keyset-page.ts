import { errors } from '../errors.js';
import { InvalidCursorError, type DocPage } from '../storage/port.js';

/** Most records read per store page while a list looks for records it may show (the first page holds `limit + 1`, each next one twice as many). */
export const MAX_KEYSET_PAGE = 400;

/**
 * Most records one request reads. A filter that keeps few records (a search that matches little, a
 * caller who may see few) would otherwise read every record after the cursor; past this budget the page
 * comes back short, with a cursor where the scan stopped. Store positions say nothing of the record
 * they mark (lowdb seals them; PostgreSQL's are bare numbers), so such a cursor names nothing hidden.
 */
export const MAX_KEYSET_SCAN = 2_000;

const invalid = () => errors.validation('Invalid cursor: pass the next_cursor of a previous page unchanged');

/**
 * A list's wire cursor: base64url of `<kind>:<store position>`. The kind names the list, so a cursor of
 * one list is refused by another; the position is that of the last record the caller was shown. The
 * `offset:<n>` cursors of earlier versions are refused like any other kind: they let a caller ask one
 * request to read every record before an offset of its choosing.
 */
export function encodeKeyset(kind: string, position: string): string {
  return Buffer.from(`${kind}:${position}`).toString('base64url');
}

/** The store position inside a cursor of list `kind`; a clear 400 for anything else. */
export function decodeKeyset(kind: string, cursor: string): string {
  const text = Buffer.from(cursor, 'base64url').toString();
  if (!text.startsWith(`${kind}:`) || text.length === kind.length + 1 || Buffer.from(text).toString('base64url') !== cursor) throw invalid();
  return text.slice(kind.length + 1);
}

export interface KeysetRequest<T, U> {
  /** Names the list in its cursors (letters, digits, `-`). */
  kind: string;
  /** The `next_cursor` of the previous page, if any. */
  cursor: string | undefined;
  limit: number;
  /** A page of at most `size` records following store position `after` (from the start when undefined), with their positions. */
  fetch: (after: string | undefined, size: number) => Promise<DocPage<T>>;
  /**
   * What the caller may be shown of `records`, parallel to them: undefined drops a record (filtered
   * out or not visible to the caller), anything else is what the page shows for it.
   */
  keep: (records: T[]) => Promise<Array<U | undefined>>;
  /** Most records to read (default `MAX_KEYSET_SCAN`; tests make it small). */
  scanBudget?: number;
}

/**
 * One page of a store-backed list, from the position in the cursor on: store pages of bounded size
 * (`limit + 1`, then twice as many up to `MAX_KEYSET_PAGE`) until `limit` kept records and one more
 * (which says a next page exists) are in hand, or the store ends, or `MAX_KEYSET_SCAN` records were read
 * (then the page may be short, even empty, and `next_cursor` continues the scan: follow it until null).
 * The work is bounded by that budget, never by what came before the cursor. `next_cursor` otherwise
 * holds the position of the last record shown.
 */
export async function keysetPage<T, U>(request: KeysetRequest<T, U>): Promise<{ items: U[]; next_cursor: string | null }> {
  const { kind, limit } = request;
  let after = request.cursor === undefined ? undefined : decodeKeyset(kind, request.cursor);
  const shown: U[] = [];
  let lastShown: string | undefined;
  let size = Math.min(limit + 1, MAX_KEYSET_PAGE);
  let scanned = 0;
  for (;;) {
    let page: DocPage<T>;
    try {
      page = await request.fetch(after, size);
    } catch (err) {
      if (err instanceof InvalidCursorError) throw invalid();
      throw err;
    }
    size = Math.min(size * 2, MAX_KEYSET_PAGE);
    const positions = page.positions;
    if (positions?.length !== page.items.length) throw new Error(`keysetPage(${kind}): the store page came without a position per record`);
    const kept = await request.keep(page.items);
    for (const [i, item] of kept.entries()) {
      if (item === undefined) continue;
      if (shown.length === limit) return { items: shown, next_cursor: encodeKeyset(kind, lastShown!) };
      shown.push(item);
      lastShown = positions[i];
    }
    if (page.next === undefined) return { items: shown, next_cursor: null };
    scanned += page.items.length;
    if (scanned >= (request.scanBudget ?? MAX_KEYSET_SCAN)) return { items: shown, next_cursor: encodeKeyset(kind, page.next) };
    after = page.next;
  }
}
