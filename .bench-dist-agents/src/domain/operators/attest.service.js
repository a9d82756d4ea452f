import { CoreError } from '../../errors.js';
import { canonicalJson } from '../../lib/canonical-json.js';
import { digestOf } from '../../lib/hash.js';
import { claimSignatureValid, parsePublicKey, rawPublicKey } from './claims.js';
import { evaluateChain } from './operator-chain.js';
const TOLERANCE = 1e-9;
export function createAttestService(deps) {
    return {
        async attest({ claim, signature, public_key }) {
            const key = parsePublicKey(public_key);
            const signatureValid = claimSignatureValid(claim, signature, key);
            let verdict = 'unverifiable';
            let reason = null;
            let recomputed = null;
            const shape = signatureValid ? claimProblem(claim) : 'the signature does not verify against public_key over the canonical JSON of the claim';
            if (shape) {
                reason = shape;
            }
            else {
                const c = claim;
                const unknown = c.operators.filter((id) => !deps.operators.exists(id));
                if (unknown.length > 0) {
                    reason = `operator ${unknown.join(', ')} is not in this node's registry`;
                }
                else {
                    try {
                        const outcome = await evaluateChain(deps.operators, c.operators, c.inputs, { tick: c.tick, phase: c.phase });
                        recomputed = { value: outcome.value, unit: outcome.unit };
                        ({ verdict, reason } = compare(c, recomputed, deps.operators.registryVersion()));
                    }
                    catch (err) {
                        if (!(err instanceof CoreError) || err.code === 'INTERNAL')
                            throw err;
                        reason = `recomputing failed: ${err.message}`;
                    }
                }
            }
            const claimSha = digestOf(claim);
            const tick = deps.clock.tick();
            return {
                ok: true,
                verdict,
                reason,
                signature_valid: signatureValid,
                recomputed,
                attestation: {
                    verdict,
                    claim_sha256: claimSha,
                    tick,
                    signature: deps.nodeKeys.sign(canonicalJson({ claim_sha256: claimSha, tick, verdict })),
                    public_key: rawPublicKey(deps.nodeKeys),
                },
            };
        },
    };
}
function compare(claim, here, registryVersion) {
    const note = claim.registry_version === registryVersion ? '' : ' (the claim was made with another registry version)';
    if (claim.unit !== here.unit)
        return { verdict: 'disagree', reason: `unit differs: the claim says "${claim.unit}", this node gets "${here.unit}"${note}` };
    const diff = Math.abs(claim.value - here.value);
    const scale = Math.max(Math.abs(claim.value), Math.abs(here.value));
    if (diff <= TOLERANCE * scale)
        return { verdict: 'agree', reason: note ? note.trim().slice(1, -1) : null };
    return { verdict: 'disagree', reason: `value differs: the claim says ${claim.value}, this node gets ${here.value}${note}` };
}
function claimProblem(c) {
    if (!Array.isArray(c.operators) || c.operators.length === 0 || !c.operators.every((o) => typeof o === 'string')) {
        return 'claim.operators must be a non-empty array of operator ids';
    }
    if (!c.inputs || typeof c.inputs !== 'object' || Array.isArray(c.inputs) || !Object.values(c.inputs).every((v) => typeof v === 'number')) {
        return 'claim.inputs must be an object of numbers';
    }
    if (typeof c.value !== 'number' || typeof c.unit !== 'string')
        return 'claim.value must be a number and claim.unit a string';
    if (!Number.isInteger(c.tick) || c.tick < 0)
        return 'claim.tick must be a non-negative integer';
    if (typeof c.phase !== 'number' || c.phase < 0 || c.phase >= 1)
        return 'claim.phase must be a number in [0, 1)';
    return undefined;
}
//# sourceMappingURL=attest.service.js.map