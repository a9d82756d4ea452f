import { randomUUID } from 'node:crypto';
import { CoreError } from '../errors.js';
import type { Caller } from '../domain/identity/caller.js';
import type { Json, PubSub } from '../storage/port.js';

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

/** How often a process tells the others sharing its store what its callers consumed. */
const SHARE_EVERY_MS = 200;
/** Buckets per message: PostgreSQL refuses NOTIFY payloads of 8000 bytes or more. */
const SHARE_PER_MESSAGE = 100;
export const SHARE_CHANNEL = 'rate-limit.consumed';

/** Several processes behind one store: each tells the others the tokens its callers took. */
export interface RateShare {
  pubsub: PubSub;
  /** False once the store closed: nothing is sent then. */
  isOpen(): boolean;
}

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

type Bucket = { tokens: number; at: number; spec: RateSpec };

/** Refills a bucket up to `t` at its rate, capped at its burst. */
function refill(b: Bucket, t: number): void {
  b.tokens = Math.min(b.spec.burst, b.tokens + ((t - b.at) / 1000) * b.spec.perSecond);
  b.at = t;
}

/**
 * One token bucket per key (the key id, else the user, else the client address for anonymous calls).
 * Time comes from `now` (the injected clock), so tests move it instead of sleeping. `rateOf` gives the
 * rate of a key's `rate_limit_tier` (undefined: unlimited); without it every caller gets `base`.
 * With `share`, processes sharing a store share each caller's bucket (see `createConsumption`).
 */
export function createRateLimiter(
  base: RateSpec,
  now: () => number,
  rateOf?: (tier: string | undefined) => RateSpec | undefined,
  share?: RateShare,
): RateLimiter {
  const buckets = new Map<string, Bucket>();
  const consumed = share ? createConsumption(share, buckets, now) : undefined;
  return {
    take(caller, clientIp) {
      const spec = rateOf ? rateOf(caller.rateTier) : base;
      if (spec === undefined) return;
      const id = caller.keyId ? `k:${caller.keyId}` : caller.uid ? `u:${caller.uid}` : `ip:${clientIp ?? 'local'}`;
      const t = now();
      let b = buckets.get(id);
      if (b) {
        buckets.delete(id); // re-insert below: Map order is then least recently used first
        b.spec = spec;
        refill(b, t);
      } else {
        b = { tokens: spec.burst, at: t, spec };
        if (buckets.size >= MAX_BUCKETS) buckets.delete(buckets.keys().next().value!);
      }
      buckets.set(id, b);
      if (b.tokens < 1) {
        const wait = Math.max(1, Math.ceil((1 - b.tokens) / spec.perSecond));
        const tier = caller.rateTier ? ` (tier ${caller.rateTier})` : '';
        const whose = caller.keyId ? `this key${tier}` : caller.uid ? `${caller.uid}${tier}` : 'this address';
        throw new CoreError(
          'RATE_LIMITED',
          `Too many requests for ${whose}; at most ${spec.perSecond} a second (bursts of ${spec.burst}); retry in ${wait} s`,
          {
            retry_after_s: wait,
          },
        );
      }
      b.tokens -= 1;
      consumed?.took(id, spec);
    },
  };
}

/**
 * Shares consumption across the processes of one store, so a caller spread over N processes gets the
 * configured rate, not N times it: every `SHARE_EVERY_MS` a process publishes how many tokens each of
 * its buckets gave out (with the bucket's rate), and the others take as many from their own bucket for
 * that caller, refilled first (a bucket may go below zero: that caller waits for the refill). Approximate:
 * what was consumed elsewhere in the last interval is not seen yet, and a lost message (while a process
 * reconnects) is never seen. While a process's messaging connection is down it counts alone, so N
 * processes can admit up to N times the rate for the outage (and one burst after it); sharing resumes by
 * itself when the connection comes back (the subscription is listened to again). Accepted on purpose:
 * the limit guards fairness, not a budget (quotas are atomic in the store), and counting in the store per
 * request would fail exactly when the database does (see notes/resume.md).
 */
function createConsumption(share: RateShare, buckets: Map<string, Bucket>, now: () => number) {
  const origin = randomUUID();
  const pending = new Map<string, [n: number, perSecond: number, burst: number]>();
  let timer: NodeJS.Timeout | undefined;
  share.pubsub.subscribe(SHARE_CHANNEL, (message) => {
    const m = message as { o?: unknown; c?: unknown } | null;
    if (!m || m.o === origin || typeof m.c !== 'object' || m.c === null) return;
    const t = now();
    for (const [id, entry] of Object.entries(m.c as Record<string, unknown>)) {
      if (!Array.isArray(entry)) continue;
      const [n, perSecond, burst] = entry as unknown[];
      if (typeof n !== 'number' || typeof perSecond !== 'number' || typeof burst !== 'number' || !(n > 0 && perSecond > 0 && burst >= 1)) continue;
      let b = buckets.get(id);
      if (b) refill(b, t);
      else {
        if (buckets.size >= MAX_BUCKETS) buckets.delete(buckets.keys().next().value!);
        b = { tokens: burst, at: t, spec: { perSecond, burst } };
        buckets.set(id, b);
      }
      // Never below one burst in debt: a flood elsewhere costs a caller here at most one burst's wait.
      b.tokens = Math.max(-b.spec.burst, b.tokens - n);
    }
  });
  const flush = () => {
    timer = undefined;
    if (!share.isOpen()) return pending.clear();
    const entries = [...pending];
    pending.clear();
    for (let i = 0; i < entries.length; i += SHARE_PER_MESSAGE) {
      share.pubsub.publish(SHARE_CHANNEL, { o: origin, c: Object.fromEntries(entries.slice(i, i + SHARE_PER_MESSAGE)) as Json });
    }
  };
  return {
    took(id: string, spec: RateSpec): void {
      pending.set(id, [(pending.get(id)?.[0] ?? 0) + 1, spec.perSecond, spec.burst]);
      if (timer === undefined) {
        timer = setTimeout(flush, SHARE_EVERY_MS);
        timer.unref();
      }
    },
  };
}
