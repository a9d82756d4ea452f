import type { Request } from 'express';
import { errors, type CoreError } from '../../errors.js';
import { sessionCookieFrom } from '../../domain/sessions/session-credentials.js';
import type { HostPolicy } from './host-policy.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * A write that only the session cookie authenticates, sent by a page of a foreign origin: what a
 * cross-site form or fetch makes a logged-in browser send (SameSite=Lax alone would let a sibling
 * site or an old browser through). The MCP endpoint refuses every foreign origin; here an
 * Authorization header is proof enough that no page forged the request (a page cannot set it
 * cross-site without a CORS preflight this node never grants), and a request without an Origin comes
 * from a non-browser client (browsers send Origin on every cross-origin write).
 */
export function crossSiteCookieWrite(req: Request, hosts: HostPolicy): CoreError | undefined {
  const origin = req.headers.origin;
  if (origin === undefined || SAFE_METHODS.has(req.method) || req.headers.authorization !== undefined) return undefined;
  if (sessionCookieFrom(req.headers.cookie) === undefined || hosts.originAllowed(origin, req.headers.host)) return undefined;
  return errors.forbidden(
    `A write authenticated by the session cookie must come from this node's own pages, not from Origin ${origin}; send an API key in the Authorization header instead`,
  );
}
