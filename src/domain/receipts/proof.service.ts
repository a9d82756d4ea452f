import { errors } from '../../errors.js';
import type { SolversService } from '../solvers/solvers.service.js';
import type { Receipt } from './receipt.js';
import type { ReceiptsService, VerifyOptions, VerifyResult } from './receipts.service.js';

/** What the compute area offers for re-running a compute receipt (looked up when needed). */
export interface ComputeRecomputer {
  recompute(input: { operators: string[]; inputs: Record<string, number> }): Promise<unknown>;
}

export interface ProofRequest {
  receipt: Receipt;
  recompute: boolean;
  inputs?: Record<string, unknown>;
  options?: Record<string, unknown>;
  output?: unknown;
}

/**
 * `POST /api/proof/verify`: checks a solve or compute receipt issued by this node. What is compared
 * depends on the kind: a solve receipt digests `{ inputs, options }` and the solver's `result`; a
 * compute receipt digests `{ operators: operator_chain, inputs }` and the compute area's output.
 */
export interface ProofService {
  verify(req: ProofRequest, signal?: AbortSignal): Promise<VerifyResult>;
}

export function createProofService(deps: { receipts: ReceiptsService; solvers: SolversService; compute: ComputeRecomputer }): ProofService {
  return {
    async verify(req, signal) {
      const { receipt } = req;
      if (req.recompute && req.inputs === undefined) {
        throw errors.validation('recompute needs the original `inputs` (and `options`, for a solve that had them)', { input: 'inputs' });
      }
      const opts: VerifyOptions = {};
      if (req.output !== undefined) opts.output = req.output;
      if (receipt.kind === 'solve') {
        const solver = receipt.solver === null ? undefined : deps.solvers.find(receipt.solver);
        if (req.inputs !== undefined) opts.input = deps.solvers.receiptInput(req.inputs, req.options);
        if (req.recompute && receipt.solver !== null && !solver) {
          opts.failed = { check: 'solver', field: 'solver', reason: `this node has no solver "${receipt.solver}" to re-run`, actual: receipt.solver };
        } else if (req.recompute && solver) {
          // A different version may legitimately give other bits: re-running only proves something for the same version.
          opts.expect = { solver_version: solver.version };
          const { inputs, options } = req;
          opts.recompute = () => deps.solvers.recompute(solver.id, inputs!, options, signal);
        }
      } else {
        if (req.options !== undefined) throw errors.validation('`options` applies to solve receipts only', { input: 'options' });
        const input = req.inputs === undefined ? undefined : { operators: receipt.operator_chain, inputs: req.inputs };
        if (input) opts.input = input;
        if (req.recompute) {
          opts.recompute = () => deps.compute.recompute(input as { operators: string[]; inputs: Record<string, number> });
        }
      }
      return deps.receipts.verifyReceipt(receipt, opts);
    },
  };
}
