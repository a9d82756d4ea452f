import { canonicalJson } from '../../lib/canonical-json.js';
/** Every field the HMAC covers, in the order checks report them. */
export const SIGNED_FIELDS = ['kind', 'solver', 'operator_chain', 'solver_version', 'input_sha256', 'output_sha256', 'tick', 'phase', 'key_id'];
/** The exact bytes the HMAC is computed over: canonical JSON of the receipt without `hmac`. */
export function signedPayload(r) {
    const { kind, solver, operator_chain, solver_version, input_sha256, output_sha256, tick, phase, key_id } = r;
    return canonicalJson({ kind, solver, operator_chain, solver_version, input_sha256, output_sha256, tick, phase, key_id });
}
//# sourceMappingURL=receipt.js.map