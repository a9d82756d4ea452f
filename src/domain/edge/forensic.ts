import { TICK_MS } from '../../lib/clock.js';
import { digestOf } from '../../lib/hash.js';

/** A claim fires (is published as `av.threat.detected`) when its forensic score reaches this. */
export const THETA = 0.7;

/**
 * The forensic score of a claim: the noisy-OR of its detector scores, 1 − ∏(1 − vᵢ), read as the
 * chance that at least one independent detector is right. One strong detector is enough, several
 * weak ones add up, no score gives 0. A detector named twice counts once, with its highest value.
 * Rounded to 6 decimals so the same claim always scores the same.
 */
export function forensicScore(scores: ReadonlyArray<{ score_id: string; value: number }>): number {
  const best = new Map<string, number>();
  for (const { score_id, value } of scores) best.set(score_id, Math.max(best.get(score_id) ?? 0, Math.min(1, Math.max(0, value))));
  let miss = 1;
  for (const value of best.values()) miss *= 1 - value;
  return Math.round((1 - miss) * 1e6) / 1e6;
}

/** Stable digest of what was observed (not of who saw it), so repeats across devices group together. */
export function claimFingerprint(claimType: string, claimPayload: Record<string, unknown>): string {
  return digestOf({ claim_type: claimType, claim_payload: claimPayload });
}

const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** Ticks covered by a window such as "90m", "24h" or "7d" (rounded up to whole ticks). */
export function windowTicks(window: string): number {
  const match = /^([1-9][0-9]{0,5})([smhd])$/.exec(window);
  if (!match) throw new Error(`not a window: ${window}`);
  return Math.ceil((Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS]) / TICK_MS);
}
