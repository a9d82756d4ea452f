import { z } from 'zod';
import { defineAction, defineTool } from '../../src/registry/types.js';
import { IsoDate, NoInput, Tick, Uid } from '../../src/registry/common-schemas.js';
import { Amount, Ed25519Signature } from './economy.schemas.js';
import type { ConversionRecord } from '../../src/domain/economy/credits-account.js';
import { wireShape } from '../../src/registry/wire-shape.js';

const Credits = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER);

const Rate = z.number().min(0).describe('Wallet tokens credited per credit converted');

const PeerTick = z.number().int().min(0).describe('Current tick at signing; stale ticks outside the replay window and repeated signatures are refused');

const PublicKeyId = z.string().min(1).max(128).describe('Id of your published Ed25519 public key');

const Conversion = wireShape<ConversionRecord>()(
  z.object({
    conversion_id: z.string(),
    uid: Uid,
    credits: Credits.describe('Credits taken from the balance'),
    tokens_credited: Amount.describe('Tokens added to the wallet'),
    rate: Rate,
    tick: Tick,
    credits_balance: Amount.describe('Credit balance after the conversion'),
    wallet_balance: Amount.describe('Wallet token balance after the conversion'),
  }),
);

export const creditsTool = defineTool({
  name: 'core_credits',
  toolset: 'economy',
  title: 'Compute credits',
  description:
    "The caller's compute-credit balance: the periodic free claim, the conversion rate and converting credits into the caller's own wallet, plus the Ed25519-signed peer calls nodes use for the same.",
  actions: [
    defineAction({
      id: 'credits.getStatus',
      action: 'status',
      method: 'GET',
      path: '/api/credits/status',
      auth: 'bearer',
      area: 'economy',
      summary: "Reports the caller's free-credit claims: whether the period is open, what a claim is worth, and past claims.",
      input: NoInput,
      output: z.object({
        ok: z.literal(true),
        uid: Uid,
        claim_open: z.boolean().describe('Whether a claim can be made in the current period'),
        claim_amount: Amount.describe('Credits a claim gives now'),
        period_ends_at: IsoDate.describe('End of the current claim period'),
        credits_balance: Amount,
        past_claims: z.array(z.object({ claimed_at: IsoDate, tick: Tick, credits: Amount })),
      }),
      idempotent: true,
      handler: async (_input, { services, caller }) => services.credits.status(caller.uid!),
    }),
    defineAction({
      id: 'credits.claim',
      action: 'claim',
      method: 'POST',
      path: '/api/credits/claim',
      auth: 'bearer',
      area: 'economy',
      summary: "Claims this period's free credits. Once per period; a second claim is refused with CONFLICT.",
      input: NoInput,
      output: z.object({
        ok: z.literal(true),
        uid: Uid,
        credits: Amount.describe('Credits added by this claim'),
        credits_balance: Amount,
        tick: Tick,
        next_claim_at: IsoDate.describe('Start of the next claim period'),
      }),
      handler: async (_input, { services, caller }) => services.credits.claim(caller.uid!),
    }),
    defineAction({
      id: 'credits.getConversion',
      action: 'get_conversion',
      method: 'GET',
      path: '/api/credits/conversion',
      auth: 'bearer',
      area: 'economy',
      summary: 'Reads your balance and the conversion rate; changes nothing.',
      input: NoInput,
      output: z.object({
        ok: z.literal(true),
        uid: Uid,
        credits_balance: Amount,
        rate: Rate,
        wallet_balance: Amount,
        tick: Tick,
      }),
      idempotent: true,
      handler: async (_input, { services, caller }) => services.credits.conversion(caller.uid!),
    }),
    defineAction({
      id: 'credits.convert',
      action: 'convert',
      method: 'POST',
      path: '/api/credits/convert',
      auth: 'bearer',
      area: 'economy',
      summary: 'Converts your credits into your wallet; a repeat with the same idempotency_key returns the first result.',
      input: z.object({
        credits: Credits.describe('Credits to convert; never more than the balance'),
        idempotency_key: z
          .string()
          .min(8)
          .max(128)
          .regex(/^[A-Za-z0-9_.:-]+$/)
          .describe('Client-chosen key; a retry with the same key converts nothing more'),
      }),
      output: z.object({
        ok: z.literal(true),
        ...Conversion.shape,
        replayed: z.boolean().describe('True when this answer repeats an earlier conversion with the same key'),
      }),
      idempotent: true,
      handler: async (input, { services, caller }) => services.credits.convert(caller.uid!, input.credits, input.idempotency_key),
    }),
    defineAction({
      id: 'credits.readPeerConversion',
      action: 'peer_conversion',
      method: 'POST',
      path: '/api/credits/peer/conversion',
      auth: 'public',
      area: 'economy',
      summary:
        'Peer-signed balance read: returns the credit balance and rate of uid when the Ed25519 signature over `credits-conversion|<uid>|<tick>` verifies.',
      input: z.object({
        uid: Uid,
        tick: PeerTick,
        signature: Ed25519Signature.describe('Ed25519 signature over `credits-conversion|<uid>|<tick>`, hex or base64'),
        public_key_id: PublicKeyId,
      }),
      output: z.object({
        ok: z.literal(true),
        uid: Uid,
        credits_balance: Amount,
        rate: Rate,
        tick: Tick,
      }),
      handler: async (input, { services }) => services.credits.peerConversion(input),
    }),
    defineAction({
      id: 'credits.peerConvert',
      action: 'peer_convert',
      method: 'POST',
      path: '/api/credits/peer/convert',
      auth: 'public',
      area: 'economy',
      summary:
        "Authority-node conversion for a peer: converts uid's credits when the Ed25519 signature over `credits-convert|<uid>|<credits>|<tick>` verifies; other nodes refuse.",
      input: z.object({
        uid: Uid,
        credits: Credits.describe('Credits to convert'),
        tick: PeerTick,
        signature: Ed25519Signature.describe('Ed25519 signature over `credits-convert|<uid>|<credits>|<tick>`, hex or base64'),
        public_key_id: PublicKeyId.optional().describe("Id of the caller's published key; the uid's current key when absent"),
      }),
      output: z.object({ ok: z.literal(true), ...Conversion.shape }),
      handler: async (input, { services }) => services.credits.peerConvert(input),
    }),
  ],
});
