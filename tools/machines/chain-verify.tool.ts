import { z } from 'zod';
import { defineAction, defineTool } from '../../src/registry/types.js';
import { Hex64, Tick } from '../../src/registry/common-schemas.js';
import type { Checkpoint as SignedCheckpoint } from '../../src/domain/chain/checkpoint.js';
import { MachineSlug } from './machines.schemas.js';
import { wireShape } from '../../src/registry/wire-shape.js';

const Checkpoint = wireShape<SignedCheckpoint>()(
  z.object({
    slug: z.string(),
    seq: z.number().int().min(0).describe('seq of the head row that was signed'),
    tick: Tick.describe('Tick of that row'),
    head_hash: Hex64.describe('state_hash of that row'),
    signed_tick: Tick.describe('Tick the checkpoint was signed at'),
    signature: z.string().describe('Ed25519 signature (base64url) over "checkpoint|<slug>|<seq>|<tick>|<head_hash>|<signed_tick>"'),
  }),
);

const CheckpointCheck = z
  .object({
    seq: z.number().int().min(0),
    tick: Tick,
    head_hash: Hex64,
    signed_tick: Tick,
    matches: z.boolean().describe('False when the chain no longer holds this signed row: its tail was cut or rewritten'),
  })
  .nullable()
  .describe('The latest checkpoint of the machine when the window reaches it; null otherwise');

export const chainVerifyTool = defineTool({
  name: 'core_chain_verify',
  toolset: 'machines',
  title: 'Verify chains',
  description:
    "Checks chain integrity: walk a machine's hash chain over a tick window and report where it breaks (validate), or fetch the node's signed checkpoints of machine heads for offline verification (get_seal). Use validate before trusting a machine's history; a truncated tail is only detectable against a checkpoint.",
  actions: [
    defineAction({
      id: 'chain.validateChain',
      action: 'validate',
      method: 'GET',
      path: '/api/chain/{slug}/pohc/validate',
      auth: 'public',
      area: 'chain',
      summary: 'Re-hashes the rows between two ticks and checks the links; returns valid, the row count and the tick of the first broken row.',
      input: z.object({
        slug: MachineSlug,
        from: Tick.optional().describe('First tick, inclusive; defaults to the genesis tick'),
        to: Tick.optional().describe('Last tick, inclusive; defaults to now'),
      }),
      output: z.object({
        ok: z.literal(true),
        valid: z.boolean(),
        count: z.number().int().min(0).describe('Rows checked'),
        broken_at: Tick.nullable().describe('Tick of the first row whose hash or link is wrong; null when valid'),
        broken_seq: z.number().int().min(0).nullable().describe('seq of that row'),
        reason: z.string().nullable().describe('What is wrong with it'),
        genesis_tick: Tick,
        from: Tick,
        to: Tick,
        message: z.string().optional().describe('e.g. "empty range"'),
        checkpoint: CheckpointCheck,
      }),
      idempotent: true,
      handler: async ({ slug, from, to }, { services, caller }) => {
        const { machine } = await services.machines.readable(slug, caller);
        return services.integrity.validate(machine, { from, to });
      },
    }),
    defineAction({
      id: 'chain.getSeal',
      action: 'get_seal',
      method: 'GET',
      path: '/api/chain/seal',
      auth: 'public',
      area: 'chain',
      summary:
        "Returns a self-verifying artifact: the node's Ed25519 public key and its signed checkpoints of public machine heads (or of one machine, with its live head), verifiable offline with `core-server verify`.",
      input: z.object({
        slug: MachineSlug.optional().describe(
          'Only checkpoints of this machine, plus its current head signed now (a private one needs membership or a share token)',
        ),
        limit: z.number().int().min(1).max(2000).default(200).describe('Most recent checkpoints to include'),
      }),
      output: z.object({
        ok: z.literal(true),
        format: z.string().describe('Artifact format, e.g. "core-seal-v1"'),
        origin: z.string().describe('Origin of the node that signed'),
        tick: Tick.describe('Tick the artifact was produced at'),
        algorithm: z.literal('Ed25519'),
        key_id: z.string().describe('Key id: first 16 hex characters of the SHA-256 of the raw public key, as in the JWKS'),
        public_key: z.string().describe('Node public key, raw 32 bytes in base64url (also published in the JWKS document)'),
        checkpoint_every_ticks: z.number().int().min(1).describe('How often heads are signed'),
        checkpoint_message: z.string().describe('The text each checkpoint signature covers'),
        checkpoints: z.array(Checkpoint),
        signature: z.string().describe('Ed25519 signature (base64url) over the canonical JSON of every other member of this object'),
      }),
      idempotent: true,
      handler: async ({ slug, limit }, { services, caller }) => services.integrity.seal({ slug, limit }, caller),
    }),
  ],
});
