import { digestOf } from '../../lib/hash.js';
import type { LogRow } from '../../storage/port.js';

/** What minted an envelope. */
export type EnvelopeSource = 'solve' | 'compute' | 'contract_fire';

export type AvatarContentType = 'image/png' | 'image/jpeg' | 'image/webp' | 'image/gif';

/** Where the avatar's ciphertext lives and what it decrypts to. */
export interface AvatarRef {
  seq: number;
  sha256: string;
  size_bytes: number;
  content_type: AvatarContentType;
}

/** A machine's token as stored (`tally-tokens/<slug>`), created once by genesis. */
export interface TokenRecord {
  machine_slug: string;
  name: string;
  symbol: string;
  max_supply: number;
  mint_rate_per_tick: number;
  genesis_tick: number;
  token_hash: string;
  /** Random handle in the machine's envelope ids; it stands for the slug, which a private machine must not reveal. */
  handle: string;
  created_by: string;
  created_at: string;
  /** Tick of the last mint-rate change; null when never changed since genesis. */
  rate_updated_tick: number | null;
  /**
   * Cumulative issuance allowance at `tick`. Allowance grows at the mint rate from there and is capped
   * by `max_supply`; a rate change folds the growth so far into a new accrual point.
   */
  accrual: { tick: number; allowance: number };
  tokens_burned: number;
  avatar: AvatarRef | null;
}

/** One envelope: an issued tally token row. Immutable; locks (bond, vote) live in `envelope-locks`. */
export interface EnvelopeRow extends LogRow {
  type: 'envelope';
  token_id: string;
  token_hash: string;
  machine_slug: string;
  value: number;
  source: EnvelopeSource;
  result_digest: string;
  issued_to: string | null;
  signature: string;
  /** Sum of every envelope's value up to and including this one: the machine's `tokens_minted`. */
  minted_total: number;
  created_at: string;
  /** Id of the process that minted it (not covered by `token_hash`): see `audit-recovery.service.ts`. */
  writer?: string;
  /** The contract fire (transition id) a `contract_fire` envelope is for, not covered by `token_hash`. */
  transition_id?: string;
  /** Present when the audit recovery minted it after a crash, for a fire whose envelope was cut off. */
  recovered?: true;
}

/** The fields `token_hash` covers, in a form a holder can recompute from the public row. */
export interface EnvelopeFields {
  token_id: string;
  machine_slug: string;
  tick: number;
  value: number;
  source: EnvelopeSource;
  result_digest: string;
  issued_to: string | null;
}

/** `token_hash` of an envelope: SHA-256 of the canonical JSON of its immutable fields. */
export function envelopeHash(f: EnvelopeFields): string {
  return digestOf({
    token_id: f.token_id,
    machine_slug: f.machine_slug,
    tick: f.tick,
    value: f.value,
    source: f.source,
    result_digest: f.result_digest,
    issued_to: f.issued_to,
  });
}

/** `token_hash` of a machine's token definition: what genesis locks. */
export function definitionHash(d: { machine_slug: string; name: string; symbol: string; max_supply: number; genesis_tick: number }): string {
  return digestOf({ machine_slug: d.machine_slug, name: d.name, symbol: d.symbol, max_supply: d.max_supply, genesis_tick: d.genesis_tick });
}

/**
 * Lifetime issuance allowed by `tick`: the accrual point plus the mint rate per elapsed tick, never
 * beyond `max_supply`. Pure arithmetic over ticks, so it holds whether or not any timer ran (restarts,
 * downtime); a clock that steps back adds nothing.
 */
export function allowanceAt(token: Pick<TokenRecord, 'accrual' | 'mint_rate_per_tick' | 'max_supply'>, tick: number): number {
  const elapsed = Math.max(0, tick - token.accrual.tick);
  return Math.min(token.max_supply, token.accrual.allowance + token.mint_rate_per_tick * elapsed);
}

/** `tokens_remaining`: what may still be minted at `tick`, never negative. */
export function remainingAt(token: Pick<TokenRecord, 'accrual' | 'mint_rate_per_tick' | 'max_supply'>, minted: number, tick: number): number {
  return Math.max(0, allowanceAt(token, tick) - minted);
}

/**
 * Envelope ids are `tt_<handle>_<seq>`: the machine's token handle and the row in its tally stream.
 * Envelope ids travel in vote results that anyone may read, so they carry the opaque handle rather
 * than the slug.
 */
export function envelopeId(handle: string, seq: number): string {
  return `tt_${handle}_${seq}`;
}

export function parseEnvelopeId(id: string): { handle: string; seq: number } | undefined {
  const m = /^tt_([a-z2-7]{16})_(\d{1,15})$/.exec(id);
  return m ? { handle: m[1]!, seq: Number(m[2]) } : undefined;
}

/**
 * Value of an envelope: `round(cost × (1 + quality))` with `quality = 1 − precision / 0.001` clamped to
 * [0, 1], so a result at the 0.001 floor is worth its cost and an exact one twice its cost.
 */
export function envelopeValue(cost: number, precision: number | null | undefined): number {
  const p = precision === null || precision === undefined || !Number.isFinite(precision) ? 0.001 : Math.max(0, precision);
  const quality = Math.min(1, Math.max(0, 1 - p / 0.001));
  return Math.round(Math.max(0, cost) * (1 + quality));
}
