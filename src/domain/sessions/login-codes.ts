import { randomInt } from 'node:crypto';
import { CoreError } from '../../errors.js';
import { sameDigest, sha256Hex } from '../../lib/hash.js';
import type { LoginCodeRepository } from './login-code-repository.js';

export const LOGIN_CODE_TTL_MS = 10 * 60 * 1000;
/** Wrong guesses allowed before the code is voided: 5 tries at 10^8 codes leave no room for guessing. */
const MAX_ATTEMPTS = 5;
/** A new code for the same address at most this often, so the log cannot be flooded. */
const REISSUE_AFTER_MS = 30 * 1000;

export interface LoginCodes {
  /** A fresh 8-digit code for the address, replacing any pending one; RATE_LIMITED when asked again too soon. */
  issue(emailHash: string, nowMs: number): Promise<{ code: string; expires_ms: number }>;
  /** Whether `code` is the pending code of the address; a match consumes it, a miss counts against it. */
  redeem(emailHash: string, code: string, nowMs: number): Promise<boolean>;
}

export function createLoginCodes(codes: LoginCodeRepository): LoginCodes {
  return {
    async issue(emailHash, nowMs) {
      const code = String(randomInt(0, 100_000_000)).padStart(8, '0');
      const record = {
        email_hash: emailHash,
        code_hash: sha256Hex(`${emailHash}|${code}`),
        issued_ms: nowMs,
        expires_ms: nowMs + LOGIN_CODE_TTL_MS,
        attempts: 0,
      };
      let tooSoon = false;
      await codes.update(emailHash, (current) => {
        if (current && current.expires_ms > nowMs && nowMs - current.issued_ms < REISSUE_AFTER_MS) {
          tooSoon = true;
          return undefined;
        }
        return record;
      });
      if (tooSoon) {
        throw new CoreError('RATE_LIMITED', 'A login code was just sent to the server log for this address; use it, or ask again in 30 seconds');
      }
      return { code, expires_ms: record.expires_ms };
    },

    async redeem(emailHash, code, nowMs) {
      const hash = sha256Hex(`${emailHash}|${code.trim()}`);
      let ok = false;
      await codes.update(emailHash, (current) => {
        if (!current || current.expires_ms <= nowMs || current.attempts >= MAX_ATTEMPTS) return undefined;
        if (sameDigest(current.code_hash, hash)) {
          ok = true;
          // Consumed: an expired record can never match again.
          return { ...current, expires_ms: 0, attempts: MAX_ATTEMPTS };
        }
        return { ...current, attempts: current.attempts + 1 };
      });
      return ok;
    },
  };
}
