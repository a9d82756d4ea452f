import { errors } from '../errors.js';
/**
 * Opaque pagination cursors. The text inside is not a contract: callers pass `next_cursor` back
 * unchanged, and a cursor that was altered gets a clear 400.
 */
export function encodeCursor(kind, n) {
    return Buffer.from(`${kind}:${n}`).toString('base64url');
}
export function decodeCursor(kind, cursor) {
    const text = Buffer.from(cursor, 'base64url').toString();
    const match = new RegExp(`^${kind}:(\\d+)$`).exec(text);
    if (!match)
        throw errors.validation('Invalid cursor: pass the next_cursor of a previous page unchanged');
    return Number(match[1]);
}
/** One page of an in-memory list, with the cursor of the next page. */
export function pageOf(items, limit, cursor) {
    const offset = cursor ? decodeCursor('offset', cursor) : 0;
    const page = items.slice(offset, offset + limit);
    return { page, next_cursor: offset + limit < items.length ? encodeCursor('offset', offset + limit) : null };
}
//# sourceMappingURL=cursor.js.map