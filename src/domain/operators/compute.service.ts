import type { Clock } from '../../lib/clock.js';
import { phaseOf, tickOf } from '../../lib/clock.js';
import type { Caller } from '../identity/caller.js';
import type { NodeKeys } from '../identity/node-keys.js';
import type { Receipt } from '../receipts/receipt.js';
import { evaluateChain, type ChainOutcome } from './operator-chain.js';
import type { OperatorsService } from './operators.service.js';
import { signClaim, type Claim, type SignedClaim } from './claims.js';
import { createAttestService, type AttestService } from './attest.service.js';

/** A proof receipt as the receipts area issues it. */
export type ComputeReceipt = Receipt;

/** The receipts area's API as compute uses it (another helper's area); looked up at call time. */
export interface ReceiptIssuer {
  issueReceipt(args: { kind: 'compute'; chain: string[]; version: string | null; input: unknown; output: unknown }): ComputeReceipt | Promise<ComputeReceipt>;
}

/** The usage area's API as compute uses it; looked up at call time. */
export interface UsageRecorder {
  record(caller: Caller, kind: 'compute', targets?: string[]): unknown;
}

export interface ComputeRequest {
  operators: string[];
  inputs: Record<string, number>;
  precision?: number | undefined;
}

export interface ComputeAnswer {
  ok: true;
  value: number;
  unit: string;
  uncertainty: number | null;
  operators: string[];
  results: Array<{ operator: string; value: number; unit: string; equation: string }>;
  precision: number;
  degraded: boolean;
  receipt: ComputeReceipt;
  signed: SignedClaim;
}

export interface ComputeService {
  /** `POST /api/compute`: KO42 plus up to 3 operators, a receipt, a claim signed by the node key. */
  run(req: ComputeRequest, caller: Caller): Promise<ComputeAnswer>;
  /**
   * Re-runs a compute for `POST /api/proof/verify`: returns `{ value, unit }`, what a compute receipt's
   * `output_sha256` digests (its `input_sha256` digests `{ operators, inputs }`, KO42 first).
   */
  recompute(input: { operators: string[]; inputs: Record<string, number> }): Promise<{ value: number; unit: string }>;
  /** `POST /api/attest`: a verdict on another node's signed claim, signed by this node. */
  attest: AttestService['attest'];
}

export interface ComputeDeps {
  clock: Clock;
  nodeKeys: NodeKeys;
  operators: OperatorsService;
  receipts: ReceiptIssuer;
  usage: UsageRecorder;
}

/** Results looser than this relative precision are marked degraded. */
const PRECISION_FLOOR = 1e-3;

export function createComputeService(deps: ComputeDeps): ComputeService {
  const { operators } = deps;
  const { attest } = createAttestService(deps);

  return {
    async run(req, caller) {
      const ms = deps.clock.now();
      const at = { tick: tickOf(ms), phase: phaseOf(ms) };
      const outcome = await evaluateChain(operators, req.operators, req.inputs, at);
      const { receipts } = deps;
      const uncertainty = Math.abs(outcome.value) * outcome.precision;
      const receipt = await receipts.issueReceipt({
        kind: 'compute',
        chain: outcome.chain,
        version: null,
        input: { operators: outcome.chain, inputs: req.inputs },
        output: receiptOutput(outcome),
      });
      const claim: Claim = {
        operators: outcome.chain,
        inputs: req.inputs,
        value: outcome.value,
        unit: outcome.unit,
        uncertainty,
        registry_version: operators.registryVersion(),
        tick: at.tick,
        phase: at.phase,
      };
      await deps.usage.record(caller, 'compute', outcome.chain);
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

/**
 * What a compute receipt's `output_sha256` digests: the answer's `value` and `unit`, so a holder can
 * present `{ value, unit }` from the answer to `POST /api/proof/verify`. The intermediate results follow
 * from the inputs (bound by `input_sha256`), and KO42's R(t) from the receipt's own tick and phase.
 */
function receiptOutput(outcome: ChainOutcome): { value: number; unit: string } {
  return { value: outcome.value, unit: outcome.unit };
}
