import { z } from 'zod';
import { defineAction, defineTool } from '../../src/registry/types.js';
import { IsoDate, Tick } from '../../src/registry/common-schemas.js';
import { envelopeValue } from '../../src/domain/economy/tally-token.js';
import { withEnvelope } from '../../src/domain/economy/envelope-attach.js';
import { MintedEnvelope, OperatorId, Receipt } from './compute.schemas.js';
import type { OperatorResult as EvaluatedOperator } from '../../src/domain/operators/operator.types.js';
import type { SignedClaim as NodeSignedClaim } from '../../src/domain/operators/claims.js';
import { wireShape } from '../../src/registry/wire-shape.js';

/** What each operator produced; the inputs as used and the node's unit cross-check are not part of the answer. */
const OperatorResult = wireShape<Pick<EvaluatedOperator, 'operator' | 'value' | 'unit' | 'equation'>>()(
  z.object({
    operator: OperatorId,
    value: z.number(),
    unit: z.string(),
    equation: z.string().describe('The formula as evaluated'),
  }),
);

/** The node signs the claim so another node can check it with `POST /api/attest`. */
const SignedClaim = wireShape<NodeSignedClaim>()(
  z.object({
    claim: z
      .object({
        operators: z.array(OperatorId),
        inputs: z.record(z.string(), z.number()),
        value: z.number(),
        unit: z.string(),
        uncertainty: z.number().nullable(),
        registry_version: z.string().describe('Digest of the operator registry the node used'),
        tick: Tick,
        phase: z.number().min(0).lt(1),
      })
      .describe('What the node asserts; the signature covers its canonical JSON'),
    signature: z.string().describe('Ed25519 signature of the canonical claim, base64url'),
    public_key: z.string().describe('Node Ed25519 public key, base64url of the raw 32 bytes'),
  }),
);

export const computeTool = defineTool({
  name: 'core_compute',
  toolset: 'compute',
  title: 'Compute with operators',
  description:
    'Evaluates 1 to 3 registry operators on numeric inputs. KO42 is always prepended; it returns the value, unit, per-operator results, an HMAC receipt and an Ed25519-signed claim. Use `run` for a computation and `usage` to see how many solves and computes your key has made. Find operator ids with core_operators.',
  actions: [
    defineAction({
      id: 'compute.run',
      action: 'run',
      method: 'POST',
      path: '/api/compute',
      auth: 'public',
      area: 'compute',
      summary: 'Evaluates KO42 plus 1 to 3 operators on the inputs; returns value, unit, per-operator results, a receipt and a signed claim.',
      input: z.object({
        operators: z
          .array(OperatorId)
          .min(1)
          .max(4)
          .refine((ids) => ids.filter((id) => id !== 'KO42').length <= 3, 'at most 3 operators beyond the mandatory KO42')
          .refine((ids) => ids.some((id) => id !== 'KO42'), 'list at least one operator besides KO42 (R(t) alone is GET /api/pulse)')
          .describe('1 to 3 operator ids; KO42 is prepended by the server and need not be listed'),
        inputs: z
          .record(z.string().min(1).max(64), z.number())
          .describe(
            "Numeric inputs by name, in the operators' units; `<ID>.<name>` targets one operator, and an earlier operator's output feeds a later input of the same name",
          ),
        precision: z.number().min(1e-9).max(0.1).optional().describe('Target relative precision; results looser than 0.001 are marked degraded'),
      }),
      output: z.object({
        ok: z.literal(true),
        value: z.number(),
        unit: z.string(),
        uncertainty: z.number().nullable(),
        operators: z.array(OperatorId).describe('Full chain as applied, KO42 first'),
        results: z.array(OperatorResult).describe('Result of each operator in the chain'),
        precision: z.number().describe('Precision achieved'),
        degraded: z.boolean().describe('True when the precision achieved is looser than 0.001'),
        receipt: Receipt,
        signed: SignedClaim,
        envelope: MintedEnvelope,
      }),
      handler: async (input, ctx) => {
        const answer = await ctx.services.compute.run(input, ctx.caller);
        return withEnvelope(ctx.services.tally.mintEnvelope, answer, {
          caller: ctx.caller,
          kind: 'compute',
          resultDigest: answer.receipt.output_sha256,
          value: envelopeValue(answer.operators.length - 1, answer.precision),
        });
      },
    }),
    defineAction({
      id: 'compute.getUsage',
      action: 'usage',
      method: 'GET',
      path: '/api/compute/usage',
      auth: 'bearer',
      area: 'compute',
      summary: 'Counts your solves and computes; in total and per solver or operator.',
      input: z.object({
        since_tick: Tick.optional().describe('Count only calls from this tick on'),
      }),
      output: z.object({
        ok: z.literal(true),
        uid: z.string(),
        since_tick: Tick.nullable(),
        solves: z.number().int().min(0),
        computes: z.number().int().min(0),
        total: z.number().int().min(0),
        by_target: z
          .array(
            z.object({
              kind: z.enum(['solver', 'operator']),
              id: z.string().describe('Solver id or operator id'),
              count: z.number().int().min(0),
            }),
          )
          .describe('Calls per solver and per operator, most used first'),
        last_at: IsoDate.nullable().describe('Time of the latest counted call'),
      }),
      idempotent: true,
      handler: async (input, { services, caller }) => services.usage.summary(caller.uid!, input.since_tick),
    }),
  ],
});
