import { z } from 'zod';
import { Hex64, Slug, Tick, Uid } from '../../src/registry/common-schemas.js';
import { sharedShape } from '../../src/registry/shared-shapes.js';
import type { AvatarContentType as AvatarImageType } from '../../src/domain/economy/tally-token.js';
import type { seatView } from '../../src/domain/economy/contribute-policy.js';
import { wireShape } from '../../src/registry/wire-shape.js';

/** Amount of tally tokens; plain JSON numbers, never negative. */
export const Amount = z.number().min(0).max(Number.MAX_SAFE_INTEGER);

export const MintRate = z.number().min(0).max(1_000_000).describe('Tokens minted per tick, up to `max_supply`');

/** Ed25519 signatures are 64 bytes: 128 hex characters or 86-88 base64 characters. */
export const Ed25519Signature = z
  .string()
  .min(86)
  .max(128)
  .regex(/^[A-Za-z0-9+/_=-]+$/, 'expected an Ed25519 signature in hex or base64')
  .describe('Ed25519 signature (64 bytes), hex or base64');

export const Base64 = z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/, 'expected standard base64');

export const AvatarContentType = wireShape<AvatarImageType>()(z.enum(['image/png', 'image/jpeg', 'image/webp', 'image/gif']));

/** The machine's token, created once by genesis and locked. */
export const TokenInfo = z.object({
  machine_slug: Slug,
  name: z.string(),
  symbol: z.string(),
  max_supply: Amount.describe('Lifetime issuance ceiling'),
  mint_rate_per_tick: MintRate,
  genesis_tick: Tick.describe('Tick at which the token was created'),
  locked: z.boolean().describe('Always true after genesis: name, symbol and ceiling cannot change'),
  has_avatar: z.boolean(),
  token_hash: Hex64.describe('SHA-256 over the canonical token definition'),
});

/** One issued token row (an envelope): minted by a solve, a compute or a contract fire. */
export const TallyToken = sharedShape(
  z.object({
    token_id: z.string(),
    token_hash: Hex64.describe('SHA-256 over machine, tick, result digest and operator chain'),
    machine_slug: Slug,
    tick: Tick.describe('Tick at which the token was minted'),
    value: Amount,
    source: z.enum(['solve', 'compute', 'contract_fire']).describe('What minted the token'),
    result_digest: Hex64.describe('SHA-256 of the result the token stands for'),
    issued_to: Uid.nullable(),
    signature: z.string().describe('Ed25519 signature of the node over token_hash'),
    bonded: z.boolean().describe('Marked immovable by a contribution bond'),
    locked_for_vote: z.boolean().describe('Staked on an open community-operator vote'),
  }),
  { name: 'token row', returnedBy: 'core_tally (get_token, list_tokens)' },
);

export const Seat = wireShape<ReturnType<typeof seatView>>()(
  z.object({
    seat_id: z.string(),
    uid: Uid,
    mode: z.string().describe('One of the modes listed by the contribution policy'),
    state: z.enum(['active', 'lapsed', 'released']),
    bonded_token_ids: z.array(z.string()),
    bonded_value: Amount,
    created_tick: Tick,
    last_heartbeat_tick: Tick,
    lapses_at_tick: Tick.describe('Tick after which the seat lapses without a heartbeat'),
  }),
);
