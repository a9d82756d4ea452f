import { digestOf, sha256Hex } from '../../lib/hash.js';
import type { LogRow } from '../../storage/port.js';

/** A chain row before its own hash is computed. */
export interface UnsealedRow {
  seq: number;
  id: string;
  tick: number;
  type: string;
  transition_id: string;
  actor_uid: string | null;
  payload_digest: string;
  prev_hash: string;
  created_at: string;
  /** Present on a row appended after the fact by the audit recovery (the crash cut it off): written late. */
  recovered?: true;
}

/** One row of a machine's append-only audit chain. */
export interface ChainRow extends UnsealedRow, LogRow {
  state_hash: string;
}

/** The `prev_hash` of a machine's first row, derived from its slug and genesis tick. */
export function genesisSeed(slug: string, genesisTick: number): string {
  return sha256Hex(`core-genesis|${slug}|${genesisTick}`);
}

/** `state_hash = sha256(canonical JSON of the row without state_hash)`. */
export function stateHashOf(row: UnsealedRow): string {
  return digestOf(row);
}

export function seal(row: UnsealedRow): ChainRow {
  return { ...row, state_hash: stateHashOf(row) };
}

export interface ChainCheck {
  valid: boolean;
  count: number;
  /** Tick of the first row that does not verify, or null. */
  broken_at: number | null;
  /** Seq of that row, or null. */
  broken_seq: number | null;
  reason: string | null;
}

/**
 * Verifies consecutive rows: each row's hash is recomputed and its `prev_hash` must equal the previous
 * row's `state_hash` (or `expectedPrev` for the first row of the window).
 */
export function verifyChain(rows: readonly ChainRow[], expectedPrev: string | undefined): ChainCheck {
  let prev = expectedPrev;
  let count = 0;
  for (const row of rows) {
    const { state_hash, ...rest } = row;
    let reason: string | null = null;
    if (prev !== undefined && row.prev_hash !== prev) reason = 'prev_hash does not match the previous row';
    else if (stateHashOf(rest) !== state_hash) reason = 'state_hash does not match the row content';
    if (reason) return { valid: false, count, broken_at: row.tick, broken_seq: row.seq, reason };
    prev = state_hash;
    count += 1;
  }
  return { valid: true, count, broken_at: null, broken_seq: null, reason: null };
}
