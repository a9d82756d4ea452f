import { errors } from '../../errors.js';
import type { Caller } from './caller.js';

/**
 * Whether the caller's credential proves who they are: a key (whoever holds it was given it) or a
 * session whose holder showed a one-time code. A session opened with an e-mail address alone
 * (`CORE_LOGIN_MODE=email`) proves nothing: anyone who knows the address gets one.
 */
export function isProven(caller: Caller): boolean {
  return caller.credential !== 'session' || caller.proven === true;
}

/**
 * Refuses what an unproven session may never do: mint credentials that outlive it (machine keys,
 * API keys, share tokens) or act as the human behind an address (community-operator promotion).
 */
export function assertProven(caller: Caller, what: string): void {
  if (isProven(caller)) return;
  throw errors.forbidden(
    `${what} needs a proven identity: this session was opened with an e-mail address alone. Sign in with a one-time code (POST /api/auth/login on a node with CORE_LOGIN_MODE=code) or use your user key`,
  );
}
