import { z } from 'zod';
import { defineAction, defineTool } from '../../src/registry/types.js';
import { Hex64, JsonObject, Tick } from '../../src/registry/common-schemas.js';
import { Receipt } from './compute.schemas.js';
import { SOLVE_BODY_BYTES } from '../../src/domain/solvers/body-bytes.js';

export const verifyTool = defineTool({
  name: 'core_verify',
  toolset: 'compute',
  title: 'Verify receipts and claims',
  description:
    'Checks receipts and signed claims; recompute: true re-runs a receipt and needs its inputs and output. `verify_receipt` checks a solve or compute receipt issued by this node (HMAC, and with recompute re-runs it and compares output digests) and answers a verdict: valid, or valid false with the check and field that failed. `attest` checks an Ed25519-signed compute claim from another node and returns a verdict signed by this node.',
  actions: [
    defineAction({
      id: 'proof.verifyReceipt',
      action: 'verify_receipt',
      method: 'POST',
      path: '/api/proof/verify',
      auth: 'public',
      area: 'compute',
      summary: 'Verifies a receipt; recompute also needs inputs and output. Answers valid, or the check and field that failed.',
      maxBodyBytes: 2 * SOLVE_BODY_BYTES,
      input: z.object({
        receipt: Receipt,
        recompute: z.boolean().default(false).describe('Re-run and compare; needs `inputs` and `output` too'),
        inputs: JsonObject.optional().describe('Original inputs, needed with recompute; checked against input_sha256'),
        options: JsonObject.optional().describe('The original solve options (solve receipts only)'),
        output: z.unknown().optional().describe("Original output (a solve's result), needed with recompute; checked against output_sha256"),
      }),
      output: z.object({
        ok: z.literal(true),
        valid: z.boolean().describe('Whether every check passed; a well-formed receipt that fails one is a verdict, not an error'),
        checks: z.array(z.enum(['hmac', 'input_sha256', 'output_sha256', 'recompute'])).describe('Checks that were performed and passed'),
        failed: z
          .object({
            check: z
              .enum(['key_id', 'tick', 'phase', 'expected', 'solver', 'hmac', 'input_sha256', 'output_sha256', 'recompute'])
              .describe('The first check that failed'),
            field: z.string().describe('The receipt field it concerns'),
            reason: z.string(),
            expected: z.unknown().optional().describe('What the field should hold, when known'),
            actual: z.unknown().optional().describe('What the receipt says'),
          })
          .nullable()
          .describe('null when valid'),
        reason: z.string().nullable().describe('"<field>: <why>" when not valid; null when valid'),
        recomputed: z.boolean(),
        key_id: z.string(),
        age_ticks: z.number().int().min(0).describe('Ticks elapsed since the receipt was issued'),
        verified_at_tick: Tick,
      }),
      idempotent: true,
      handler: async (input, ctx) => ctx.services.proof.verify(input, ctx.signal),
    }),
    defineAction({
      id: 'proof.attestClaim',
      action: 'attest',
      method: 'POST',
      path: '/api/attest',
      auth: 'public',
      area: 'compute',
      summary: 'Checks a compute claim signed by another node; verifies it against its public key, re-derives it, and returns a signed verdict.',
      input: z.object({
        claim: JsonObject.describe('The `signed.claim` object of a compute answer'),
        signature: z.string().min(1).max(512).describe('Ed25519 signature of the canonical claim, base64url'),
        public_key: z.string().min(1).max(4096).describe('Signing node public key: base64url of the raw 32 bytes, or SPKI PEM'),
      }),
      output: z.object({
        ok: z.literal(true),
        verdict: z
          .enum(['agree', 'disagree', 'unverifiable'])
          .describe('agree: signature valid and this node gets the same value; disagree: it does not; unverifiable: bad signature or unknown operator'),
        reason: z.string().nullable(),
        signature_valid: z.boolean(),
        recomputed: z.object({ value: z.number(), unit: z.string() }).nullable(),
        attestation: z
          .object({
            verdict: z.enum(['agree', 'disagree', 'unverifiable']),
            claim_sha256: Hex64,
            tick: Tick,
            signature: z.string().describe('Ed25519 signature by this node, base64url'),
            public_key: z.string().describe("This node's Ed25519 public key, base64url"),
          })
          .describe('The verdict signed by this node; the signature covers the canonical JSON of { claim_sha256, tick, verdict }'),
      }),
      idempotent: true,
      handler: async (input, ctx) => ctx.services.compute.attest(input),
    }),
  ],
});
