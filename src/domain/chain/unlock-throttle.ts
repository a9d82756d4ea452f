import { CoreError } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import type { Caller } from '../identity/caller.js';
import { createRollingWindows } from '../quotas/rolling-window.js';
import type { RollingWindowRepository } from '../quotas/rolling-window-repository.js';

/** Password guesses one guesser may make on one machine per window. */
export const UNLOCK_GUESSES = 5;
/** Guesses all anonymous callers together may make on one machine per window (bounds guessing from many addresses). */
export const UNLOCK_ANONYMOUS_GUESSES = 20;
export const UNLOCK_WINDOW_MS = 60_000;

export interface UnlockThrottle {
  /**
   * Takes one guess at `slug`'s password before it is checked (RATE_LIMITED when none is left), so
   * concurrent guesses can never check more than the limit between them. A guesser is a signed-in
   * identity, or the client address of an anonymous caller; anonymous callers also share one budget
   * per machine. Signed-in callers never draw on the anonymous budgets, so a flood of anonymous
   * guesses cannot lock out a person who knows the password and sends any key of their own.
   */
  take(slug: string, caller: Caller, clientIp: string | undefined): Promise<void>;
}

export function createUnlockThrottle(deps: { windows: RollingWindowRepository; clock: Clock }): UnlockThrottle {
  const windows = createRollingWindows({ windows: deps.windows, windowMs: UNLOCK_WINDOW_MS, now: deps.clock.now });

  function refuse(slug: string, retryMs: number, who: string): never {
    const retry = Math.ceil(retryMs / 1000);
    throw new CoreError(
      'RATE_LIMITED',
      `Too many password guesses for "${slug}" ${who}; try again in ${retry} s. Signed-in callers are counted on their own: send your key to unlock even while anonymous guesses are held back`,
      { retry_after_s: retry },
    );
  }

  return {
    async take(slug, caller, clientIp) {
      if (caller.uid !== null) {
        const own = await windows.take(`${slug}|uid|${caller.uid}`, UNLOCK_GUESSES);
        if (!own.taken) refuse(slug, own.retry_after_ms, 'from this identity');
        return;
      }
      const address = await windows.take(`${slug}|ip|${clientIp ?? 'local'}`, UNLOCK_GUESSES);
      if (!address.taken) refuse(slug, address.retry_after_ms, 'from this address');
      const anonymous = await windows.take(`${slug}|anonymous`, UNLOCK_ANONYMOUS_GUESSES);
      if (!anonymous.taken) refuse(slug, anonymous.retry_after_ms, 'from anonymous callers');
    },
  };
}
