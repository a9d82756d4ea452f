import { SignJWT, jwtVerify } from 'jose';
import { randomToken } from '../../lib/hash.js';
import type { NodeKeys } from '../identity/node-keys.js';

/** Audience of portal session tokens: the node signs other things with its key, never with this audience. */
export const SESSION_AUDIENCE = 'core-session';

/** How long a portal session lasts. */
export const SESSION_TTL_SECONDS = 24 * 60 * 60;

/** How the holder proved who they are (the JWT `amr` claim). */
export type SessionMethod = 'email' | 'otp' | 'sso';

export interface SessionClaims {
  uid: string;
  /** Session id (`sid`), random per session. */
  sid: string;
  method: SessionMethod;
  /**
   * Whether the holder proved control of the identity (the `prv` claim): true for a one-time code or a
   * round trip started by a proven credential, false for an e-mail address alone.
   */
  proven: boolean;
  /** Expiry, unix seconds. */
  exp: number;
}

/**
 * Signs a portal session as a compact JWS (EdDSA over the node's Ed25519 key, `kid` = the key id in
 * the JWKS), so any standard library can verify it against `GET /api/.well-known/jwks.json`.
 */
export async function signSession(
  keys: NodeKeys,
  input: { uid: string; method: SessionMethod; proven: boolean; issuer: string; nowMs: number },
): Promise<{ token: string; claims: SessionClaims }> {
  const iat = Math.floor(input.nowMs / 1000);
  const claims: SessionClaims = { uid: input.uid, sid: `s_${randomToken(20)}`, method: input.method, proven: input.proven, exp: iat + SESSION_TTL_SECONDS };
  const token = await new SignJWT({ sid: claims.sid, amr: [input.method], prv: input.proven })
    .setProtectedHeader({ alg: 'EdDSA', kid: keys.keyId, typ: 'JWT' })
    .setIssuer(input.issuer)
    .setSubject(input.uid)
    .setAudience(SESSION_AUDIENCE)
    .setIssuedAt(iat)
    .setExpirationTime(claims.exp)
    .sign(keys.privateKey);
  return { token, claims };
}

/**
 * The claims of a session token signed by this node and not expired at `nowMs`, or undefined. The
 * issuer is not compared: it follows the node's URL, which may change between runs, while only this
 * node holds the key.
 */
export async function verifySession(keys: NodeKeys, token: string, nowMs: number): Promise<SessionClaims | undefined> {
  try {
    const { payload } = await jwtVerify(token, keys.publicKey, {
      algorithms: ['EdDSA'],
      audience: SESSION_AUDIENCE,
      currentDate: new Date(nowMs),
      requiredClaims: ['sub', 'exp', 'sid'],
    });
    const method = Array.isArray(payload.amr) ? payload.amr[0] : undefined;
    if (typeof payload.sub !== 'string' || typeof payload.sid !== 'string') return undefined;
    // Only an explicit `prv: true` proves anything; a token without the claim is taken as unproven.
    return {
      uid: payload.sub,
      sid: payload.sid,
      method: method === 'otp' || method === 'sso' ? method : 'email',
      proven: payload.prv === true,
      exp: payload.exp!,
    };
  } catch {
    return undefined;
  }
}
