/** File name suffix of a log stream. */
export const LOG_SUFFIX = '.jsonl';
/** Longest encoded stream name: file names are limited to 255 bytes on common filesystems. */
const MAX_ENCODED_LENGTH = 255 - LOG_SUFFIX.length;
/**
 * Encodes a stream name (which holds `/`, `:` and anything else) as a file name. Only `[a-z0-9_-]`
 * stays as is; every other byte, upper-case letters included, becomes `%XX`, so two names never share
 * a file on case-insensitive filesystems and `decodeURIComponent` reverses it.
 */
export function encodeStreamName(stream) {
    if (typeof stream !== 'string' || stream.length === 0)
        throw new TypeError('stream name must be a non-empty string');
    // encodeURIComponent rejects lone surrogates and leaves only [A-Za-z0-9.!~*'()_-] bare; escape the rest.
    const out = encodeURIComponent(stream).replace(/%[0-9A-F]{2}|[A-Z.!~*'()]/g, (match) => match.length === 3 ? match : `%${match.charCodeAt(0).toString(16).toUpperCase()}`);
    if (out.length > MAX_ENCODED_LENGTH)
        throw new RangeError(`stream name is too long: ${stream.slice(0, 40)}…`);
    return out;
}
/** The stream a log file name holds, or undefined for a file this store did not write. */
export function decodeStreamFile(fileName) {
    if (!fileName.endsWith(LOG_SUFFIX))
        return undefined;
    const encoded = fileName.slice(0, -LOG_SUFFIX.length);
    try {
        const stream = decodeURIComponent(encoded);
        return encodeStreamName(stream) === encoded ? stream : undefined;
    }
    catch {
        return undefined;
    }
}
//# sourceMappingURL=stream-names.js.map