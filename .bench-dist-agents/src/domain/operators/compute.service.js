import { errors } from '../../errors.js';
import { phaseOf, tickOf } from '../../lib/clock.js';
import { evaluateChain } from './operator-chain.js';
import { signClaim } from './claims.js';
import { createAttestService } from './attest.service.js';
/** Results looser than this relative precision are marked degraded. */
const PRECISION_FLOOR = 1e-3;
export function createComputeService(deps) {
    const { operators } = deps;
    const { attest } = createAttestService(deps);
    return {
        async run(req, caller) {
            const ms = deps.clock.now();
            const at = { tick: tickOf(ms), phase: phaseOf(ms) };
            const outcome = await evaluateChain(operators, req.operators, req.inputs, at);
            const receipts = deps.receipts();
            if (!receipts)
                throw errors.notImplemented('receipts');
            const uncertainty = Math.abs(outcome.value) * outcome.precision;
            const receipt = await receipts.issueReceipt({
                kind: 'compute',
                chain: outcome.chain,
                version: null,
                input: { operators: outcome.chain, inputs: req.inputs },
                output: receiptOutput(outcome),
            });
            const claim = {
                operators: outcome.chain,
                inputs: req.inputs,
                value: outcome.value,
                unit: outcome.unit,
                uncertainty,
                registry_version: operators.registryVersion(),
                tick: at.tick,
                phase: at.phase,
            };
            await deps.usage()?.record(caller, 'compute', outcome.chain);
            return {
                ok: true,
                value: outcome.value,
                unit: outcome.unit,
                uncertainty,
                operators: outcome.chain,
                results: outcome.results.map((r) => ({ operator: r.operator, value: r.value, unit: r.unit, equation: r.equation })),
                precision: outcome.precision,
                degraded: outcome.precision > Math.min(req.precision ?? PRECISION_FLOOR, PRECISION_FLOOR),
                receipt,
                signed: signClaim(deps.nodeKeys, claim),
            };
        },
        attest,
        async recompute(input) {
            const ms = deps.clock.now();
            return receiptOutput(await evaluateChain(operators, input.operators, input.inputs, { tick: tickOf(ms), phase: phaseOf(ms) }));
        },
    };
}
function receiptOutput(outcome) {
    return {
        value: outcome.value,
        unit: outcome.unit,
        results: outcome.results.slice(1).map((r) => ({ operator: r.operator, value: r.value, unit: r.unit })),
    };
}
//# sourceMappingURL=compute.service.js.map