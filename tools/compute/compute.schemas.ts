import { z } from 'zod';
import { Hex64, IsoDate, JsonObject, Slug, Tick, Uid } from '../../src/registry/common-schemas.js';
import { sharedShape } from '../../src/registry/shared-shapes.js';
import type { ProposalIo, TestCaseInput } from '../../src/domain/community/proposal-verify.js';
import type { ProposalStatus as ProposalStatusName, Tally } from '../../src/domain/community/community-policy.js';
import type { Receipt as HmacReceipt } from '../../src/domain/receipts/receipt.js';
import type { OperatorSummary as OperatorSummaryView } from '../../src/domain/operators/operators.service.js';
import type { InputSpec as SolverInputSpec } from '../../src/domain/solvers/solver-def.js';
import type { SolverSummary as SolverSummaryView, SolverView } from '../../src/domain/solvers/solvers.service.js';
import { wireShape } from '../../src/registry/wire-shape.js';

/** Operator ids are canonical uppercase; a dotted suffix names a sub-operator (`KO42.1`). */
export const OperatorId = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Z0-9_]+(?:\.[A-Z0-9_]+)?$/, 'an operator id is uppercase letters, digits and "_", with an optional dotted sub-id')
  .describe('Operator id, e.g. "KO42", "NM19" or "KO42.1"');

export const SolverId = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[a-z0-9][a-z0-9_-]*$/, 'a solver id is lowercase letters, digits, "-" and "_"')
  .describe('Solver id. As the solver list gives it');

/**
 * Proof receipt of one solve or compute. The HMAC covers every other field, so a receipt can be
 * checked later by `POST /api/proof/verify` without the server keeping it.
 */
export const Receipt = sharedShape(
  wireShape<HmacReceipt>()(
    z
      .object({
        kind: z.enum(['solve', 'compute']).describe('What produced the receipt'),
        solver: SolverId.nullable().describe('Solver id for a solve; null for a compute'),
        operator_chain: z.array(OperatorId).min(1).describe('Operators applied, in order, KO42 first'),
        solver_version: z.string().max(64).nullable().describe('Sealed solver version; null for a compute'),
        input_sha256: Hex64.describe('SHA-256 of the canonical JSON of the inputs'),
        output_sha256: Hex64.describe('SHA-256 of the canonical JSON of the output'),
        tick: Tick.describe('Tick at which the result was produced'),
        phase: z.number().min(0).lt(1).describe('Phase within the tick, in [0, 1)'),
        key_id: z.string().min(1).max(128).describe('Id of the server key that made the HMAC'),
        hmac: Hex64.describe('HMAC-SHA256 over the canonical JSON of all other receipt fields'),
      })
      .describe('Proof receipt. It binds inputs, outputs, solver or operator chain and time'),
  ),
  { name: 'receipt', returnedBy: 'core_solve or core_compute' },
);

export const SolverInput = wireShape<SolverInputSpec>()(
  z.object({
    name: z.string(),
    description: z.string(),
    unit: z.string().describe('SI unit, empty for dimensionless'),
    type: z
      .enum(['number', 'integer', 'boolean', 'string', 'vector', 'matrix', 'list', 'object'])
      .describe('vector: array of numbers; matrix: array of equal-length number rows; list: array of strings or objects as described; object: named numbers'),
    required: z.boolean(),
    min: z.number().nullable().describe('Inclusive lower bound, null when unbounded; applies to every element of a vector or matrix'),
    max: z.number().nullable().describe('Inclusive upper bound, null when unbounded; applies to every element of a vector or matrix'),
    default: z.unknown().optional(),
    enum: z.array(z.string()).optional().describe('Allowed values of a string input'),
    min_items: z.number().int().min(0).optional().describe('Fewest elements of a vector or list, or rows of a matrix'),
    max_items: z.number().int().min(0).optional().describe('Most elements of a vector or list, or rows of a matrix'),
  }),
);

export const SolverSummary = wireShape<SolverSummaryView>()(
  z.object({
    id: SolverId,
    name: z.string(),
    domain: z.string().describe('Field of the solver, e.g. "ode", "orbital_mechanics", "quantum"'),
    method: z.string().describe('Numerical method, e.g. "Dormand-Prince 5(4) adaptive RK"'),
    operator_chain: z.array(OperatorId).describe('Registry operators the solver composes, KO42 first'),
    unit: z.string().describe('Unit of the main result'),
    version: z.string().describe('Sealed version: same input and version give the same output bits'),
  }),
);

export const Solver = wireShape<SolverView>()(
  SolverSummary.extend({
    description: z.string(),
    inputs: z.array(SolverInput).describe('Inputs with units and bounds'),
    options: z.array(SolverInput).describe('Method options accepted in `options`'),
    example: JsonObject.describe('An example `inputs` object that solves successfully'),
  }),
);

export const OperatorIo = wireShape<ProposalIo>()(
  z.object({
    name: z.string(),
    unit: z.string().describe('SI unit, empty for dimensionless'),
    description: z.string().optional(),
  }),
);

export const OperatorSummary = wireShape<OperatorSummaryView>()(
  z.object({
    id: OperatorId,
    name: z.string(),
    category: z.string().describe('Category key, snake_case'),
    formula: z.string().describe('Human-readable formula'),
    tier: z.string(),
  }),
);

/** An operator input: the value a compute must pass, in `unit`, within the inclusive bounds. */
export const OperatorInputSpec = OperatorIo.extend({
  example: z.number().describe('A realistic value for which the formula is finite'),
  min: z.number().nullable().describe('Inclusive lower bound, null when unbounded'),
  max: z.number().nullable().describe('Inclusive upper bound, null when unbounded'),
});

export const Operator = OperatorSummary.extend({
  description: z.string(),
  expression: z.string().describe('Machine-evaluable form of the formula (mathjs syntax, SI constants)'),
  inputs: z.array(OperatorInputSpec),
  output: OperatorIo,
  domain: z.array(z.string()),
  proof_required: z.boolean(),
  example_inputs: z.record(z.string(), z.number()),
});

export const ProposalId = z.string().min(1).max(128).describe('Proposal id');

export const ProposalStatus = wireShape<ProposalStatusName>()(
  z.enum(['staging', 'voting', 'accepted', 'rejected', 'promoted']).describe('staging, then voting, then accepted or rejected; promoted: in the registry'),
);

export const VoteTally = wireShape<Tally>()(
  z.object({
    yes_weight: z.number().min(0).describe('Total value of envelopes staked yes'),
    no_weight: z.number().min(0).describe('Total value of envelopes staked no'),
    stakers: z.number().int().min(0).describe('Distinct staking uids'),
    quorum: z.number().int().min(0).describe('Distinct stakers needed for a valid outcome'),
    min_stake: z.number().min(0).describe('Total staked value needed for a valid outcome'),
  }),
);

export const TestCase = wireShape<TestCaseInput>()(
  z.object({
    inputs: z.record(z.string(), z.number()),
    expected: z.number(),
    tolerance: z.number().positive().max(0.1).default(0.001).describe('Allowed relative error'),
  }),
);

export const Proposal = z.object({
  id: ProposalId,
  operator_id: OperatorId.describe('Id the operator will have once promoted'),
  name: z.string(),
  category: z.string(),
  formula: z.string(),
  expression: z.string(),
  description: z.string(),
  inputs: z.array(OperatorIo),
  output: OperatorIo,
  source: z.object({ citation: z.string(), url: z.string().nullable() }).describe('Cited source of the formula'),
  verification: z
    .object({
      passed: z.boolean(),
      max_relative_error: z.number().min(0),
      cases: z.array(TestCase.extend({ actual: z.number().nullable(), passed: z.boolean() })),
    })
    .describe('The test cases as evaluated at proposal time'),
  author_uid: Uid,
  status: ProposalStatus,
  vote: VoteTally.extend({
    opened_at_tick: Tick,
    closes_at_tick: Tick,
  })
    .nullable()
    .describe('Vote window and running tally; null before open-vote'),
  created_at: IsoDate,
});

/** The envelope a solve or compute minted on the caller's machine; absent when none was minted. */
export const MintedEnvelope = z
  .object({
    token_id: z.string().describe('Id of the envelope (tally token row)'),
    machine_slug: Slug,
    value: z.number().min(0),
    tokens_remaining: z.number().min(0).describe("The machine's tokens_remaining after this mint"),
  })
  .optional()
  .describe(
    "The envelope this result minted on the caller's machine (a machine key's machine, or a user's oldest machine with a token); absent when none was minted",
  );
