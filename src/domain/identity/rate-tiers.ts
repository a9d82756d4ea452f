import { CoreError, errors } from '../../errors.js';

/** Rate of a token bucket: `perSecond` tokens refill each second, up to `burst`. */
export interface TierRate {
  perSecond: number;
  burst: number;
}

/** A tier's rate, `null` for unlimited, or `'default'` for the node's default rate (`CORE_RATE_LIMIT`). */
export type TierSetting = TierRate | null | 'default';

/**
 * Built-in tiers, named as the service's plans are. `standard` is the node default; the others are
 * fixed rates an operator may change or extend with `CORE_RATE_TIERS`.
 */
export const BUILTIN_RATE_TIERS: Readonly<Record<string, TierSetting>> = Object.freeze({
  free: { perSecond: 10, burst: 40 },
  standard: 'default',
  starter: { perSecond: 50, burst: 200 },
  builder: { perSecond: 100, burst: 400 },
  advanced: { perSecond: 200, burst: 800 },
  architect: { perSecond: 500, burst: 2000 },
});

const TIER_NAME = /^[a-z0-9][a-z0-9_-]{0,31}$/;

/**
 * Parses `CORE_RATE_TIERS`: comma-separated `name=<per second>/<burst>` (or `name=off` for unlimited),
 * e.g. `free=5/20,partner=200/800`; entries add to or replace the built-in tiers. Throws on anything
 * else, so a typo stops the server at start.
 */
export function parseRateTiers(value: string | undefined): Record<string, TierSetting> {
  const tiers: Record<string, TierSetting> = { ...BUILTIN_RATE_TIERS };
  if (value === undefined || value.trim() === '') return tiers;
  for (const entry of value.split(',')) {
    const m = /^\s*([^=\s]+)\s*=\s*(?:(off)|(\d+(?:\.\d+)?)\/(\d+))\s*$/.exec(entry);
    if (!m || !TIER_NAME.test(m[1]!) || (!m[2] && (Number(m[3]) <= 0 || Number(m[4]) < 1))) {
      throw new Error(
        `CORE_RATE_TIERS must be "name=<requests per second>/<burst>" or "name=off", comma-separated (e.g. free=5/20,partner=200/800), got "${entry.trim()}"`,
      );
    }
    tiers[m[1]!] = m[2] ? null : { perSecond: Number(m[3]), burst: Number(m[4]) };
  }
  return tiers;
}

export interface RateTiers {
  /** Tier names a key may carry. */
  readonly names: string[];
  /**
   * The rate for a key of `tier`: the node default for no tier (or one no longer configured), undefined
   * when unlimited (that tier, or rate limiting off with `CORE_RATE_LIMIT=off`).
   */
  rateOf(tier: string | null | undefined): TierRate | undefined;
  /**
   * Refuses a tier the caller may not give a key: an unknown name (VALIDATION_FAILED), or one more
   * generous than the caller's own (FORBIDDEN), so minting keys never raises anyone's limit.
   */
  assertAssignable(tier: string, callerTier: string | null | undefined): void;
}

/** The node's tiers over its default rate (`undefined`: rate limiting is off). */
export function createRateTiers(base: TierRate | undefined, tiers: Record<string, TierSetting> = { ...BUILTIN_RATE_TIERS }): RateTiers {
  const names = Object.keys(tiers).sort();
  const rateOf = (tier: string | null | undefined): TierRate | undefined => {
    if (base === undefined) return undefined;
    const setting = tier != null && Object.prototype.hasOwnProperty.call(tiers, tier) ? tiers[tier]! : 'default';
    return setting === 'default' ? base : (setting ?? undefined);
  };
  /** Whether rate `a` lets a caller do no more than rate `b` (undefined is unlimited). */
  const noMoreThan = (a: TierRate | undefined, b: TierRate | undefined) =>
    b === undefined || (a !== undefined && a.perSecond <= b.perSecond && a.burst <= b.burst);
  return {
    names,
    rateOf,
    assertAssignable(tier, callerTier) {
      if (!Object.prototype.hasOwnProperty.call(tiers, tier)) {
        throw errors.validation(`Unknown rate_limit_tier "${tier}"; this node has: ${names.join(', ')}`, {
          issues: [{ path: 'rate_limit_tier', message: `expected one of ${names.join(', ')}`, code: 'invalid_value' }],
        });
      }
      const own = rateOf(callerTier);
      if (!noMoreThan(rateOf(tier), own)) {
        const allowed = names.filter((n) => noMoreThan(rateOf(n), own));
        throw new CoreError('FORBIDDEN', `Tier "${tier}" allows more requests than your own key's; you may give a key one of: ${allowed.join(', ')}`, {
          allowed,
        });
      }
    },
  };
}

/**
 * Whether a caller gets the free callers' bounds on costly work (conditions, compression levels):
 * anonymous callers, demo keys and sessions (no tier) and keys of the `free` tier. A key given any other
 * tier (a plan, or one an operator defined) is not.
 */
export function isFreeCaller(caller: { credential: string; rateTier?: string | undefined }): boolean {
  if (caller.credential === 'none') return true;
  return caller.rateTier === undefined || caller.rateTier === 'free';
}
