import { z } from 'zod';
/**
 * JSON Schema of a zod schema, from zod 4's own converter. `io: 'input'` describes what a caller
 * may send (defaults optional); `io: 'output'` what the server returns.
 */
export function toJsonSchema(schema, io) {
    const out = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' });
    delete out.$schema;
    return out;
}
/** The JSON type a top-level property of an object schema expects, for query-string coercion. */
export function propertyTypes(schema) {
    const props = (schema.properties ?? {});
    const types = {};
    for (const [name, prop] of Object.entries(props))
        types[name] = primaryType(prop);
    return types;
}
function primaryType(prop) {
    if (typeof prop.type === 'string')
        return prop.type;
    if (Array.isArray(prop.type))
        return prop.type.find((t) => t !== 'null') ?? 'string';
    for (const key of ['anyOf', 'oneOf', 'allOf']) {
        const list = prop[key];
        if (Array.isArray(list)) {
            for (const item of list) {
                const t = primaryType(item);
                if (t !== 'null' && t !== 'unknown')
                    return t;
            }
        }
    }
    if (prop.const !== undefined)
        return typeof prop.const;
    if (Array.isArray(prop.enum) && prop.enum.length > 0)
        return typeof prop.enum[0];
    return 'unknown';
}
//# sourceMappingURL=json-schema.js.map