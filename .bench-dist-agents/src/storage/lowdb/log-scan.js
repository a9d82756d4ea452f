const CHUNK_BYTES = 1 << 20;
const NEWLINE = 0x0a;
/** True when `value` has the shape every stored row has; `seq` must equal its line number. */
export function isRowAt(value, seq) {
    if (typeof value !== 'object' || value === null || Array.isArray(value))
        return false;
    const row = value;
    return row.seq === seq && typeof row.tick === 'number' && Number.isFinite(row.tick) && typeof row.type === 'string';
}
function parseLine(buffer, start, end) {
    try {
        return JSON.parse(buffer.toString('utf8', start, end));
    }
    catch {
        return undefined;
    }
}
/**
 * Reads a JSON-lines log in fixed-size chunks (never the whole file as one string) and fills `index`.
 * Only the last line may be torn, since rows are only ever appended; a bad row anywhere else is
 * corruption, which is reported as an error rather than silently repaired.
 */
export async function scanLog(fh, index, file) {
    const { size } = await fh.stat();
    let head;
    let pending = Buffer.alloc(0);
    /** File position of `pending[0]`. */
    let base = 0;
    let readAt = 0;
    while (readAt < size) {
        const chunk = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, size - readAt));
        const { bytesRead } = await fh.read(chunk, 0, chunk.length, readAt);
        if (bytesRead === 0)
            break;
        readAt += bytesRead;
        const fresh = chunk.subarray(0, bytesRead);
        pending = pending.length > 0 ? Buffer.concat([pending, fresh]) : fresh;
        let start = 0;
        for (let nl = pending.indexOf(NEWLINE, start); nl !== -1; nl = pending.indexOf(NEWLINE, start)) {
            const value = parseLine(pending, start, nl);
            if (value === undefined) {
                if (base + nl + 1 < size)
                    throw new Error(`${file}: unreadable row ${index.length} before the end of the log`);
                return { head, validEnd: base + start, torn: 'the last line is not valid JSON' };
            }
            if (!isRowAt(value, index.length))
                throw new Error(`${file}: row ${index.length} is malformed`);
            index.push(nl + 1 - start, value.tick, value.type);
            head = value;
            start = nl + 1;
        }
        base += start;
        pending = pending.subarray(start);
    }
    const torn = pending.length > 0 ? 'the last line has no trailing newline' : undefined;
    return { head, validEnd: base, torn };
}
//# sourceMappingURL=log-scan.js.map