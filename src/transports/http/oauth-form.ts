import type { Request } from 'express';
import { OAuthError } from '../../domain/oauth/oauth-error.js';

export type Params = Record<string, string | undefined>;

/** Form fields; a parameter sent twice is refused (RFC 6749 §3.1, §3.2). */
export function formParams(text: string): Params {
  // No prototype: a field named `__proto__` or `constructor` is a field like any other.
  const params = Object.create(null) as Params;
  for (const [k, v] of new URLSearchParams(text)) {
    if (Object.hasOwn(params, k)) throw new OAuthError('invalid_request', `the parameter ${k.slice(0, 50)} is sent more than once`);
    params[k] = v;
  }
  return params;
}

/** Whether a session cookie may approve: the form was posted from this node's own page (no cross-site approval). */
export function sameOriginPost(req: Request, issuer: string): boolean {
  const origin = req.headers.origin;
  if (typeof origin === 'string') return origin === new URL(issuer).origin;
  return req.headers['sec-fetch-site'] === 'same-origin';
}
