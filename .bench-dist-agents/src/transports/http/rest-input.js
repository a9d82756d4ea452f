import { errors } from '../../errors.js';
/** Query keys the transport itself reads; they never reach an operation's input. */
export const TRANSPORT_QUERY_KEYS = new Set(['share_token']);
/**
 * Builds an operation's input from the parts of an HTTP request: body fields, then query fields
 * (strings coerced to the JSON type the schema declares), then path params.
 */
export function restInput(op, params, query, body) {
    const input = {};
    if (body !== undefined && body !== null) {
        if (typeof body !== 'object' || Array.isArray(body)) {
            return errors.validation('The request body must be a JSON object', {
                issues: [{ path: '(body)', message: 'expected a JSON object', code: 'invalid_type' }],
            });
        }
        Object.assign(input, body);
    }
    for (const [key, value] of Object.entries(query)) {
        if (TRANSPORT_QUERY_KEYS.has(key))
            continue;
        input[key] = coerce(value, op.fieldTypes[key]);
    }
    for (const [key, value] of Object.entries(params))
        input[key] = value;
    return input;
}
const NUMBER = /^-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$/;
/** Query-string coercion; a value that does not fit is passed on as-is so validation names the problem. */
export function coerce(value, type) {
    if (type === 'array') {
        if (Array.isArray(value))
            return value;
        return typeof value === 'string' ? (value === '' ? [] : value.split(',')) : value;
    }
    if (typeof value !== 'string')
        return value;
    switch (type) {
        case 'number':
        case 'integer':
            return NUMBER.test(value.trim()) ? Number(value) : value;
        case 'boolean':
            if (value === 'true' || value === '1')
                return true;
            if (value === 'false' || value === '0')
                return false;
            return value;
        case 'object':
            try {
                return JSON.parse(value);
            }
            catch {
                return value;
            }
        default:
            return value;
    }
}
//# sourceMappingURL=rest-input.js.map