/**
 * Canonical JSON: object keys sorted by code point, no whitespace, `undefined` members dropped.
 * Hashes and signatures are computed over this form so that key order never changes a digest.
 * Non-finite numbers are refused because JSON cannot carry them.
 */
export function canonicalJson(value) {
    return write(value);
}
function write(value) {
    if (value === null)
        return 'null';
    switch (typeof value) {
        case 'string':
            return JSON.stringify(value);
        case 'boolean':
            return value ? 'true' : 'false';
        case 'number':
            if (!Number.isFinite(value))
                throw new TypeError('canonical JSON cannot encode a non-finite number');
            return JSON.stringify(value);
        case 'bigint':
            return JSON.stringify(value.toString());
        case 'object': {
            if (Array.isArray(value))
                return `[${value.map((v) => (v === undefined ? 'null' : write(v))).join(',')}]`;
            if (typeof value.toJSON === 'function') {
                return write(value.toJSON());
            }
            const obj = value;
            const keys = Object.keys(obj)
                .filter((k) => obj[k] !== undefined)
                .sort();
            return `{${keys.map((k) => `${JSON.stringify(k)}:${write(obj[k])}`).join(',')}}`;
        }
        default:
            throw new TypeError(`canonical JSON cannot encode a ${typeof value}`);
    }
}
//# sourceMappingURL=canonical-json.js.map