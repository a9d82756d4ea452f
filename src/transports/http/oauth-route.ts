import type { Request, Response } from 'express';
import { CoreError, toCoreError } from '../../errors.js';
import type { Logger } from '../../log.js';
import type { Credentials } from '../../pipeline/authenticate.js';
import type { Pipeline } from '../../pipeline/invoke.js';
import type { OAuthService } from '../../domain/oauth/oauth.service.js';
import type { SessionsService } from '../../domain/sessions/sessions.service.js';
import { OAuthError } from '../../domain/oauth/oauth-error.js';
import { OAUTH_SCOPES } from '../../domain/oauth/oauth-scopes.js';
import { rpcErrorBody } from '../mcp/http-endpoint.js';
import { BodyTooLargeError, readBoundedBody } from './bounded-body.js';
import { serveAuthorize } from './oauth-authorize.js';
import { formParams } from './oauth-form.js';

export const PROTECTED_RESOURCE_PATH = '/.well-known/oauth-protected-resource';
export const AUTHORIZATION_SERVER_PATH = '/.well-known/oauth-authorization-server';
/** Forms and registrations are small: a larger body is refused before it is parsed. */
export const OAUTH_BODY_BYTES = 16 * 1024;

/** The OAuth endpoints (`CORE_OAUTH=on`) and the challenges the rest of the HTTP surface sends. */
export interface OAuthRoute {
  handles(path: string): boolean;
  serve(req: Request, res: Response): Promise<void>;
  /** `WWW-Authenticate` of a 401 on `path`, naming the protected-resource metadata of what was called. */
  challenge(path: string): string;
  /** `POST /api/mcp` without any credential: 401 with the challenge, so a client starts its login. */
  mcpNeedsLogin(creds: Credentials): boolean;
  /** Answers `/api/mcp` with 401 and the challenge; `invalidToken` when a credential was sent but is not live. */
  refuseMcp(res: Response, invalidToken: boolean): void;
}

export interface OAuthRouteDeps {
  oauth: OAuthService;
  sessions: SessionsService;
  pipeline: Pipeline;
  log: Logger;
}

import type { Params } from './oauth-form.js';
import { RPC_ERROR } from '../mcp/rpc-codes.js';

export function createOAuthRoute(deps: OAuthRouteDeps): OAuthRoute {
  const { oauth, log } = deps;
  const challenge = (path: string) => {
    const { issuer } = oauth.resources();
    return `Bearer resource_metadata="${issuer}${PROTECTED_RESOURCE_PATH}${path === '/api/mcp' ? '/api/mcp' : ''}"`;
  };

  function metadata(path: string): object | undefined {
    const { issuer, mcp, api } = oauth.resources();
    if (path === PROTECTED_RESOURCE_PATH || path === `${PROTECTED_RESOURCE_PATH}/api/mcp`) {
      return {
        resource: path === PROTECTED_RESOURCE_PATH ? api : mcp,
        authorization_servers: [issuer],
        scopes_supported: [...OAUTH_SCOPES],
        bearer_methods_supported: ['header'],
        resource_name: 'core-server',
        resource_documentation: `${issuer}/api/docs`,
      };
    }
    if (path !== AUTHORIZATION_SERVER_PATH) return undefined;
    return {
      issuer,
      authorization_endpoint: `${issuer}/oauth/authorize`,
      token_endpoint: `${issuer}/oauth/token`,
      registration_endpoint: `${issuer}/oauth/register`,
      revocation_endpoint: `${issuer}/oauth/revoke`,
      response_types_supported: ['code'],
      response_modes_supported: ['query'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none'],
      revocation_endpoint_auth_methods_supported: ['none'],
      scopes_supported: [...OAUTH_SCOPES],
      client_id_metadata_document_supported: true,
      authorization_response_iss_parameter_supported: true,
    };
  }

  async function form(req: Request): Promise<Params> {
    const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (type !== 'application/x-www-form-urlencoded') throw new OAuthError('invalid_request', 'send the parameters as application/x-www-form-urlencoded');
    return formParams(await readBoundedBody(req, OAUTH_BODY_BYTES));
  }

  async function register(req: Request): Promise<object> {
    const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (type !== 'application/json') throw new OAuthError('invalid_client_metadata', 'send the client metadata as application/json');
    let body: unknown;
    try {
      body = JSON.parse(await readBoundedBody(req, OAUTH_BODY_BYTES));
    } catch (err) {
      if (err instanceof BodyTooLargeError) throw err;
      throw new OAuthError('invalid_client_metadata', 'the body is not valid JSON');
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body))
      throw new OAuthError('invalid_client_metadata', 'the client metadata must be a JSON object');
    const client = await oauth.register(body);
    return {
      client_id: client.client_id,
      client_id_issued_at: client.client_id_issued_at,
      ...(client.client_name !== null ? { client_name: client.client_name } : {}),
      redirect_uris: client.redirect_uris,
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }

  function json(res: Response, status: number, body: object | undefined): void {
    res.setHeader('Cache-Control', 'no-store');
    if (body === undefined) return void res.status(status).end();
    res.status(status).json(body);
  }

  /** Every failure as OAuth error JSON with its status: bad input is never a 500. */
  function fail(res: Response, err: unknown): void {
    if (res.headersSent) return void res.end();
    if (err instanceof OAuthError) {
      if (err.status === 503) res.setHeader('Retry-After', '5');
      return json(res, err.status, err.body());
    }
    if (err instanceof BodyTooLargeError) return json(res, 413, { error: 'invalid_request', error_description: err.message });
    const error = err instanceof CoreError ? err : toCoreError(err);
    const retry = (error.details as { retry_after_s?: unknown } | undefined)?.retry_after_s;
    if (typeof retry === 'number') res.setHeader('Retry-After', String(Math.max(1, Math.ceil(retry))));
    if (error.status === 429 || error.status === 503) return json(res, error.status, { error: 'temporarily_unavailable', error_description: error.message });
    log.error('oauth request failed', { path: res.req.path, err });
    json(res, 500, { error: 'server_error', error_description: 'The server failed to answer; try again' });
  }

  async function serve(req: Request, res: Response): Promise<void> {
    const path = req.path;
    res.setHeader('Access-Control-Allow-Origin', '*');
    if (req.method === 'OPTIONS') {
      res.setHeader('Access-Control-Allow-Methods', 'GET, POST, OPTIONS');
      res.setHeader('Access-Control-Allow-Headers', 'Content-Type, Authorization, MCP-Protocol-Version');
      return void res.status(204).end();
    }
    try {
      // The node's request rate, per client address: these endpoints are open to anyone.
      await deps.pipeline.admit({}, req.socket.remoteAddress);
      const doc = req.method === 'GET' ? metadata(path) : undefined;
      if (doc) return void res.setHeader('Cache-Control', 'public, max-age=300').json(doc);
      if (path === '/oauth/authorize' && (req.method === 'GET' || req.method === 'POST')) {
        res.removeHeader('Access-Control-Allow-Origin');
        return await serveAuthorize(req, res, { oauth, sessions: deps.sessions, form: () => form(req), fail: (err) => fail(res, err) });
      }
      if (req.method !== 'POST' || !['/oauth/token', '/oauth/register', '/oauth/revoke'].includes(path)) {
        return json(res, 404, { error: 'invalid_request', error_description: `No OAuth endpoint ${req.method} ${path}; see ${AUTHORIZATION_SERVER_PATH}` });
      }
      if (path === '/oauth/token') return json(res, 200, await oauth.token(await form(req)));
      if (path === '/oauth/register') return json(res, 201, await register(req));
      await oauth.revoke(await form(req));
      json(res, 200, undefined);
    } catch (err) {
      fail(res, err);
    }
  }

  return {
    handles: (path) => path.startsWith('/oauth/') || path.startsWith('/.well-known/oauth-'),
    serve,
    challenge,
    mcpNeedsLogin: (creds) => creds.bearer === undefined && creds.session === undefined && creds.shareToken === undefined,
    refuseMcp(res, invalidToken) {
      const why = invalidToken
        ? 'the token or key sent is not known here, expired or was revoked; refresh the token or sign in again'
        : 'this server needs a login: OAuth (see the WWW-Authenticate header) or a key as Authorization: Bearer <key> or X-API-Key';
      res.setHeader('WWW-Authenticate', `${challenge('/api/mcp')}${invalidToken ? ', error="invalid_token"' : ''}`);
      // Sent before the body was read: the connection closes after it instead of draining the body.
      res.setHeader('Connection', 'close');
      res.status(401).json(rpcErrorBody(null, RPC_ERROR.REFUSED, `Unauthorized: ${why}`, { code: 'UNAUTHENTICATED' }));
    },
  };
}

/**
 * The `WWW-Authenticate` value for a refusal, or undefined when it takes none: `Bearer` for a 401; with
 * OAuth on (`res.locals.oauth`), the protected-resource metadata URL, and for a 403 of an OAuth token's
 * scope, `error="insufficient_scope"` and the scope needed (RFC 6750 §3, RFC 9728 §5.1).
 */
export function challengeFor(res: Response, error: CoreError): string | undefined {
  const route = res.locals.oauth as OAuthRoute | undefined;
  if (error.code === 'UNAUTHENTICATED') return route ? route.challenge(res.req.path) : 'Bearer';
  const details = error.details as { oauth_error?: unknown; scope?: unknown } | undefined;
  if (!route || error.code !== 'FORBIDDEN' || details?.oauth_error !== 'insufficient_scope') return undefined;
  return `${route.challenge(res.req.path)}, error="insufficient_scope", scope="${String(details.scope)}"`;
}
