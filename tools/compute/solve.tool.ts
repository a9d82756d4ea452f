import { z } from 'zod';
import { defineAction, defineTool, SOLVERS_TAG } from '../../src/registry/types.js';
import { JsonObject } from '../../src/registry/common-schemas.js';
import { MintedEnvelope, Receipt, SolverId } from './compute.schemas.js';
import { envelopeValue } from '../../src/domain/economy/tally-token.js';
import { withEnvelope } from '../../src/domain/economy/envelope-attach.js';
import { SOLVE_BODY_BYTES } from '../../src/domain/solvers/body-bytes.js';

/** Common method options; a solver may accept more, listed in its `options`. */
const SolveOptions = z
  .looseObject({
    tolerance: z.number().positive().max(0.1).optional().describe('Target relative tolerance of the method'),
    max_iterations: z.number().int().min(1).max(10_000_000).optional().describe('Iteration or step budget'),
  })
  .describe("Method options; see the solver's `options` for the ones it accepts");

export const solveTool = defineTool({
  name: 'core_solve',
  toolset: 'compute',
  title: 'Run a solver',
  description:
    'Runs one sealed numerical solver on your inputs; returns the result, its unit and a signed proof receipt. Out-of-range inputs or non-convergence are refused with the reason. Find solvers and their inputs with core_solvers.',
  actions: [
    defineAction({
      id: 'solver.solve',
      action: 'solve',
      method: 'POST',
      path: '/api/solvers/{id}/solve',
      tags: [SOLVERS_TAG],
      auth: 'public',
      maxBodyBytes: SOLVE_BODY_BYTES,
      area: 'compute',
      summary: 'Runs the solver on the given inputs and returns the result, its unit, method diagnostics and an HMAC proof receipt.',
      input: z.object({
        id: SolverId,
        inputs: JsonObject.describe("Inputs by name, in the solver's units"),
        options: SolveOptions.optional(),
      }),
      output: z.object({
        ok: z.literal(true),
        solver: SolverId,
        version: z.string().describe('Sealed solver version used'),
        result: z.unknown().describe('The solution: a number, an array or an object, as the solver documents'),
        unit: z.string().describe('Unit of the main result, empty for dimensionless'),
        diagnostics: z
          .object({
            converged: z.boolean(),
            iterations: z.number().int().min(0).nullable(),
            error_estimate: z.number().nullable().describe('Method error estimate, null when the method gives none'),
            duration_ms: z.number().min(0),
          })
          .describe('How the method ran'),
        receipt: Receipt,
        envelope: MintedEnvelope,
      }),
      handler: async (input, ctx) => {
        const answer = await ctx.services.solvers.solve(input.id, input.inputs, input.options, {
          caller: ctx.caller,
          signal: ctx.signal,
          progress: ctx.progress,
        });
        return withEnvelope(ctx.services.tally.mintEnvelope, answer, {
          caller: ctx.caller,
          kind: 'solve',
          resultDigest: answer.receipt.output_sha256,
          value: envelopeValue(Math.max(1, answer.receipt.operator_chain.length - 1), null),
        });
      },
    }),
  ],
});
