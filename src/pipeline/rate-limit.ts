import { CoreError } from '../errors.js';
import type { Caller } from '../registry/types.js';

/** Rate of a token bucket: `perSecond` tokens refill each second, up to `burst`. */
export interface RateSpec {
  perSecond: number;
  burst: number;
}

export interface RateLimiter {
  /** Takes one token for the caller; throws RATE_LIMITED (with `retry_after_s`) when the bucket is empty. */
  take(caller: Caller, clientIp: string | undefined): void;
}

/** Most buckets kept at once; the fullest (least recently used) are dropped first, which loses nothing. */
const MAX_BUCKETS = 50_000;

/**
 * Parses `CORE_RATE_LIMIT`: `<per second>/<burst>` (e.g. `50/200`), or `off`. Throws on anything else,
 * so a typo stops the server at start rather than silently disabling the limit.
 */
export function parseRateSpec(value: string | undefined, fallback: RateSpec): RateSpec | undefined {
  if (value === undefined || value === '') return fallback;
  if (value === 'off' || value === '0') return undefined;
  const m = /^(\d+(?:\.\d+)?)\/(\d+)$/.exec(value.trim());
  if (!m || Number(m[1]) <= 0 || Number(m[2]) < 1) {
    throw new Error(`CORE_RATE_LIMIT must be "<requests per second>/<burst>" (e.g. 50/200) or "off", got "${value}"`);
  }
  return { perSecond: Number(m[1]), burst: Number(m[2]) };
}

/**
 * One token bucket per key (the key id, else the user, else the client address for anonymous calls).
 * Time comes from `now` (the injected clock), so tests move it instead of sleeping.
 */
export function createRateLimiter(spec: RateSpec, now: () => number): RateLimiter {
  const buckets = new Map<string, { tokens: number; at: number }>();
  return {
    take(caller, clientIp) {
      const id = caller.keyId ? `k:${caller.keyId}` : caller.uid ? `u:${caller.uid}` : `ip:${clientIp ?? 'local'}`;
      const t = now();
      let b = buckets.get(id);
      if (b) {
        buckets.delete(id); // re-insert below: Map order is then least recently used first
        b.tokens = Math.min(spec.burst, b.tokens + ((t - b.at) / 1000) * spec.perSecond);
        b.at = t;
      } else {
        b = { tokens: spec.burst, at: t };
        if (buckets.size >= MAX_BUCKETS) buckets.delete(buckets.keys().next().value!);
      }
      buckets.set(id, b);
      if (b.tokens < 1) {
        const wait = Math.max(1, Math.ceil((1 - b.tokens) / spec.perSecond));
        throw new CoreError('RATE_LIMITED', `Too many requests for this key; at most ${spec.perSecond} a second (bursts of ${spec.burst}); retry in ${wait} s`, {
          retry_after_s: wait,
        });
      }
      b.tokens -= 1;
    },
  };
}
