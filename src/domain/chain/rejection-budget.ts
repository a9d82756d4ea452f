import { CoreError } from '../../errors.js';
import { setNewest } from '../../lib/sliding-window.js';
import type { Caller } from '../identity/caller.js';

/** Rows a minute the rejection log takes from one anonymous client address. */
export const ANONYMOUS_REJECTIONS_PER_MINUTE = 10;
/** Rows a minute it takes from one key or session. */
export const KEYED_REJECTIONS_PER_MINUTE = 60;
/** Rows a minute it takes in all: bounds the disk it can fill (about 600 x 1 KB a minute at most). */
export const NODE_REJECTIONS_PER_MINUTE = 600;
/** Reporters remembered at once; the oldest windows are dropped first (they are about to end anyway). */
const MAX_REPORTERS = 10_000;
const MINUTE_MS = 60_000;

export interface RejectionBudget {
  /** Counts one row for the reporter, or throws RATE_LIMITED (with `retry_after_s`) naming the budget that ran out. */
  take(caller: Caller, clientIp: string | undefined, nowMs: number): void;
}

/**
 * Fixed one-minute windows per reporter (key, else user, else client address) and for the whole node.
 * The log stays open to anonymous reporters (the spec makes it public: a client library or proxy that
 * rejects a submission may hold no key), but one address can neither fill the disk nor use up the
 * node-wide budget that keyed reporters share.
 */
export function createRejectionBudget(): RejectionBudget {
  const windows = new Map<string, { start: number; count: number }>();
  let node = { start: 0, count: 0 };

  const refuse = (what: string, limit: number, start: number, nowMs: number): never => {
    const wait = Math.max(1, Math.ceil((start + MINUTE_MS - nowMs) / 1000));
    throw new CoreError('RATE_LIMITED', `The rejection log takes at most ${limit} rows a minute ${what}; retry in ${wait} s`, { retry_after_s: wait });
  };

  return {
    take(caller, clientIp, nowMs) {
      const anonymous = caller.uid === null;
      const id = caller.keyId ? `k:${caller.keyId}` : caller.uid ? `u:${caller.uid}` : `ip:${clientIp ?? 'unknown'}`;
      const limit = anonymous ? ANONYMOUS_REJECTIONS_PER_MINUTE : KEYED_REJECTIONS_PER_MINUTE;
      let mine = windows.get(id);
      if (!mine || nowMs - mine.start >= MINUTE_MS) mine = { start: nowMs, count: 0 };
      setNewest(windows, id, mine, MAX_REPORTERS);
      if (mine.count >= limit) refuse(anonymous ? 'from one client address without a key' : 'per key', limit, mine.start, nowMs);
      if (nowMs - node.start >= MINUTE_MS) node = { start: nowMs, count: 0 };
      if (node.count >= NODE_REJECTIONS_PER_MINUTE) refuse('on this node', NODE_REJECTIONS_PER_MINUTE, node.start, nowMs);
      mine.count++;
      node.count++;
    },
  };
}
