import { errors } from '../../errors.js';
/** Builds an input spec with the usual defaults (required, unbounded, dimensionless). */
export function input(name, type, description, extra = {}) {
    return {
        name,
        description,
        unit: extra.unit ?? '',
        type,
        required: extra.required ?? extra.default === undefined,
        min: extra.min ?? null,
        max: extra.max ?? null,
        ...(extra.default !== undefined ? { default: extra.default } : {}),
        ...(extra.enum ? { enum: extra.enum } : {}),
        ...(extra.min_items !== undefined ? { min_items: extra.min_items } : {}),
        ...(extra.max_items !== undefined ? { max_items: extra.max_items } : {}),
    };
}
/** The common method options. */
export const TOLERANCE = (dflt, min = 1e-14) => input('tolerance', 'number', 'Target relative tolerance of the method', { default: dflt, min, max: 0.1 });
export const MAX_ITERATIONS = (dflt, max) => input('max_iterations', 'integer', 'Iteration or step budget; the solve is refused when it runs out', { default: dflt, min: 1, max });
/** A domain failure of the solve (out of range, no convergence): 422 with the reason. */
export function unprocessable(message, details) {
    throw errors.unprocessable(message, details);
}
/** A malformed input: 400 naming it. */
export function invalid(name, message) {
    throw errors.validation(`Invalid input "${name}": ${message}`, { input: name });
}
//# sourceMappingURL=solver-def.js.map