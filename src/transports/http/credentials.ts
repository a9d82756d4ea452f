import type { Request } from 'express';
import { bearerFrom, type Credentials } from '../../pipeline/authenticate.js';
import { sessionCookieFrom } from '../../domain/sessions/session-credentials.js';

/**
 * The credentials a request carries: bearer value (`Authorization: Bearer`, else `X-API-Key`, the
 * header hosted MCP clients offer beside it), share token (header, else `share_token` in the query)
 * and the portal session cookie. What they are worth is the pipeline's call (`authenticate`).
 */
export function credentialsOf(req: Request, query?: Record<string, unknown>): Credentials {
  const creds: Credentials = {};
  const apiKey = req.headers['x-api-key'];
  const bearer = req.headers.authorization !== undefined || typeof apiKey !== 'string' ? bearerFrom(req.headers.authorization) : apiKey.trim() || undefined;
  if (bearer !== undefined) creds.bearer = bearer;
  const header = req.headers['x-share-token'];
  // Express parses `req.query` anew on every read: read only for a URL with a query and no header.
  const shared = typeof header === 'string' ? header : (query ?? (req.url.includes('?') ? (req.query as Record<string, unknown>) : undefined))?.share_token;
  const share = typeof shared === 'string' ? shared : undefined;
  if (share) creds.shareToken = share;
  const session = sessionCookieFrom(req.headers.cookie);
  if (session !== undefined) creds.session = session;
  return creds;
}
