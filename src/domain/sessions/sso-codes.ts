import { createHash } from 'node:crypto';
import { randomToken, sameDigest, sha256Hex } from '../../lib/hash.js';
import { type SsoCodeRecord, type SsoCodeRepository } from './sso-code-repository.js';

/** Codes are exchanged within seconds by a browser; a minute leaves room and little window. */
export const SSO_CODE_TTL_MS = 60 * 1000;

export interface SsoGrant {
  uid: string;
  redirect_uri: string;
}

/** Why an exchange was refused; every refusal has already consumed the code. */
export type SsoRefusal = 'unknown_code' | 'expired' | 'other_browser' | 'state_mismatch' | 'verifier_required' | 'verifier_mismatch';

export interface SsoCodes {
  /** A code for the grant, and the binding value the starting browser keeps in a cookie. */
  issue(
    input: { uid: string; state: string; redirect_uri: string; code_challenge: string | null },
    nowMs: number,
  ): Promise<{ code: string; binding: string; expires_ms: number }>;
  /**
   * Consumes the code (single use whatever the outcome) and returns its grant, or why it was refused.
   * `binding` is the cookie the completing browser sent: only the browser that started may finish.
   */
  exchange(
    input: { code: string; state: string; code_verifier?: string | undefined; binding: string | undefined },
    nowMs: number,
  ): Promise<SsoGrant | SsoRefusal>;
}

/** The PKCE S256 challenge of a verifier: base64url(SHA-256(verifier)). */
export function pkceChallenge(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url');
}

export function createSsoCodes(codes: SsoCodeRepository): SsoCodes {
  return {
    async issue(input, nowMs) {
      await codes.sweep(nowMs);
      const code = `ac_${randomToken(40)}`;
      const binding = randomToken(32);
      const record: SsoCodeRecord = { code_hash: sha256Hex(code), ...input, binding_hash: sha256Hex(binding), expires_ms: nowMs + SSO_CODE_TTL_MS };
      await codes.insert(record);
      return { code, binding, expires_ms: record.expires_ms };
    },

    async exchange(input, nowMs) {
      // Of two concurrent exchanges only the one that took the record goes on.
      const record = await codes.take(sha256Hex(input.code));
      if (!record) return 'unknown_code';
      if (record.expires_ms <= nowMs) return 'expired';
      // Login CSRF: a code started by someone else and handed to this browser finds no binding here.
      if (input.binding === undefined || !record.binding_hash || !sameDigest(record.binding_hash, sha256Hex(input.binding))) return 'other_browser';
      if (!sameDigest(sha256Hex(record.state), sha256Hex(input.state))) return 'state_mismatch';
      if (record.code_challenge !== null) {
        if (input.code_verifier === undefined) return 'verifier_required';
        if (!sameDigest(sha256Hex(pkceChallenge(input.code_verifier)), sha256Hex(record.code_challenge))) return 'verifier_mismatch';
      }
      return { uid: record.uid, redirect_uri: record.redirect_uri };
    },
  };
}
