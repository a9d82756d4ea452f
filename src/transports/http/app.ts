import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { cookieFrom } from '../../domain/sessions/session-credentials.js';
import { randomUUID } from 'node:crypto';
import { CoreError, errors, publicError, toCoreError } from '../../errors.js';
import type { Logger } from '../../log.js';
import type { Pipeline } from '../../pipeline/invoke.js';
import type { Registry } from '../../registry/registry.js';
import { toolWording, type Wording } from '../../registry/surface-wording.js';
import type { createMcpHttpHandler } from '../mcp/http-endpoint.js';
import { rpcResponseJson } from '../mcp/call-tool.js';
import { rpcErrorBody } from '../mcp/http-endpoint.js';
import { createHostPolicy, type HostPolicy } from './host-policy.js';
import { restInput } from '../../registry/rest-input.js';
import { readJsonBody, type BodyBound } from './json-body.js';
import { bodyLimitOf, DEFAULT_BODY_BYTES, keyed, tooLargeMessage } from './body-limits.js';
import type { Admission } from '../../pipeline/invoke.js';
import type { Operation } from '../../registry/registry.js';
import { ANONYMOUS } from '../../domain/identity/caller.js';
import { createSseCap, type SseCap } from './sse-cap.js';
import type { SseSubscriberHook } from './sse.js';
import { sendError, setRefusalHeaders, writeJson, writeResult } from './result-writer.js';
import { isSitePath, type SiteRoute } from './site-route.js';
import { credentialsOf } from './credentials.js';
import { crossSiteCookieWrite } from './cookie-writes.js';
import { isExplorerPath, type ExplorerRoute } from './explorer-route.js';
import type { OAuthRoute } from './oauth-route.js';
import { bodyParserError } from './body-parser-errors.js';
import { RPC_ERROR } from '../mcp/rpc-codes.js';

export const BODY_LIMIT = '1mb';
/** `BODY_LIMIT` in bytes, as body-parser reads it: the limit of every operation that declares no `maxBodyBytes`. */
const BODY_LIMIT_BYTES = DEFAULT_BODY_BYTES;

export interface HttpDeps {
  registry: Registry;
  pipeline: Pipeline;
  log: Logger;
  mcp: ReturnType<typeof createMcpHttpHandler>;
  /** Machine sites under `/s/` (pages and the operation proxy); absent: `/s/` is not served. */
  site?: SiteRoute;
  /** Called once per answered request under `/s/`, with its path and status (CDN request counts). */
  onSiteRequest?: (path: string, status: number) => void;
  /** The explorer's static pages (`/`, `/m/{slug}`, `/catalog`, `/explorer/...`); absent: not served. */
  explorer?: ExplorerRoute;
  /** Told when an SSE subscriber connects or goes away (metrics). */
  onSseSubscriber?: SseSubscriberHook;
  /** Most event streams one caller (bearer value, session, else client address) may hold open; unlimited when absent. */
  sseMaxPerCaller?: number;
  /** The names this node answers to and the origins that may write with its cookie; loopback only when absent. */
  hosts?: HostPolicy;
  /** The open-stream count shared with the site proxy; made from `sseMaxPerCaller` when absent. */
  sseCap?: SseCap;
  /** Most ms before a request is answered 503 UNAVAILABLE if nothing was sent yet (`CORE_RESPONSE_TIMEOUT_MS`); absent: none. */
  responseTimeoutMs?: number;
  /** The OAuth endpoints and challenges (`CORE_OAUTH=on`); absent: neither is served, keys work as always. */
  oauth?: OAuthRoute;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The REST surface: one dispatching middleware over the registry's precompiled route table (Express
 * walks registered routes one by one, so ~190 routes would cost half the throughput), plus the MCP
 * endpoint. Transports only translate wire formats; the pipeline does the rest.
 */
export function createHttpApp(deps: HttpDeps): express.Express {
  const { registry, pipeline, log } = deps;
  const hosts = deps.hosts ?? createHostPolicy();
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.set('query parser', 'simple');

  // One body-parser per limit, for the bodies the lean reader leaves to it (compressed, other charsets).
  const parsers = new Map<number, RequestHandler>();
  const fallbackFor = (limit: number): RequestHandler => {
    let parser = parsers.get(limit);
    if (!parser) {
      parser = express.json({ limit, strict: false, type: ['application/json', 'application/*+json'] });
      parsers.set(limit, parser);
    }
    return parser;
  };

  // One middleware does everything: each extra Express layer costs measurable throughput.
  app.use((req, res, next) => {
    const given = req.header('x-request-id');
    const id = given && REQUEST_ID.test(given) ? given : randomUUID();
    res.locals.requestId = id;
    res.setHeader('X-Request-Id', id);
    // Before the body is read: a DNS-rebinding page reaches a loopback server under a foreign name.
    const host = req.headers.host;
    if (!hosts.hostAllowed(host)) return refuseHost(req, res, host!);
    const mcp = req.path === '/api/mcp';
    if (deps.oauth) {
      res.locals.oauth = deps.oauth;
      if (deps.oauth.handles(req.path)) return void deps.oauth.serve(req, res).catch(next);
      if (mcp && deps.oauth.mcpNeedsLogin(credentialsOf(req))) return deps.oauth.refuseMcp(res, false);
    }
    const site = !mcp && deps.site !== undefined && isSitePath(req.path);
    const explorer = !mcp && !site && deps.explorer !== undefined && isExplorerPath(req.path);
    // An operation's route is matched before its body is read: the operation sets the body limit.
    const match = mcp || site || explorer ? undefined : safeMatch(registry, req.method, req.path);
    if (deps.responseTimeoutMs !== undefined) answerByDeadline(req, res, deps.responseTimeoutMs, mcp);
    const route = (admission?: Admission) =>
      (mcp ? serveMcp(req, res, admission) : site ? serveSite(req, res) : explorer ? deps.explorer!(req, res) : dispatch(req, res, match!, admission)).catch(
        next,
      );
    if (!hasBody(req)) return void route();
    if (!mcp && match?.kind !== 'found')
      return void readJsonBody(req, res, (err?: unknown) => (err ? next(err) : void route()), { limit: BODY_LIMIT_BYTES }, fallbackFor);
    // Bound before you parse: the caller is authenticated and its rate token taken before a byte of the
    // body is read, and how much is read follows who it is and what it calls (`body-limits.ts`).
    pipeline.admit(credentialsOf(req), req.socket.remoteAddress).then(
      (admission) => {
        if ('refused' in admission && !mcp) return refuseBeforeBody(req, res, admission.refused, false);
        if (mcp && deps.oauth && 'caller' in admission && admission.caller.unknownCredential) return deps.oauth.refuseMcp(res, true);
        const withKey = 'caller' in admission && keyed(admission.caller);
        const bound: BodyBound = mcp
          ? deps.mcp.bodyBound('caller' in admission ? admission.caller : ANONYMOUS, (name) => req.header(name))
          : bodyBoundOf(match!.kind === 'found' ? match!.op : undefined, withKey);
        readJsonBody(req, res, (err?: unknown) => (err ? (mcp ? refuseMcpBody(req, res, err, next) : next(err)) : void route(admission)), bound, fallbackFor);
      },
      (err: unknown) => refuseBeforeBody(req, res, toCoreError(err), mcp),
    );
  });

  /** A refusal answered before the body was read: the connection closes after it instead of draining the body. */
  function refuseBeforeBody(req: Request, res: Response, error: CoreError, mcp: boolean): void {
    res.setHeader('Connection', 'close');
    if (mcp) return writeRpcRefusal(res, error, toolWording(registry));
    sendError(res, error);
  }

  /** A body refused on `POST /api/mcp` past its limit: a JSON-RPC error; other body errors as before. */
  function refuseMcpBody(req: Request, res: Response, err: unknown, next: NextFunction): void {
    const error = bodyParserError(err);
    if (error?.code !== 'PAYLOAD_TOO_LARGE') return next(err);
    writeRpcRefusal(res, error, toolWording(registry));
  }

  function refuseHost(req: Request, res: Response, host: string): void {
    const message = `This node does not answer to the name "${host}" (a DNS-rebinding page would use such a name); call it as ${hosts.names.join(', ')}, or add the name to CORE_ALLOWED_HOSTS`;
    if (req.path === '/api/mcp') return writeJson(res, 403, JSON.stringify(rpcErrorBody(null, RPC_ERROR.REFUSED, `Forbidden: ${message}`)));
    sendError(res, errors.forbidden(message));
  }

  function serveSite(req: Request, res: Response): Promise<void> {
    const count = deps.onSiteRequest;
    if (count) {
      const path = req.path;
      res.once('finish', () => count(path, res.statusCode));
    }
    return deps.site!(req, res);
  }

  async function serveMcp(req: Request, res: Response, admission: Admission | undefined): Promise<void> {
    const out = await deps.mcp({
      method: req.method,
      headers: req.headers,
      body: req.body,
      credentials: credentialsOf(req),
      ...(admission ? { admission } : {}),
      ...(req.socket.remoteAddress ? { clientIp: req.socket.remoteAddress } : {}),
      requestId: res.locals.requestId as string,
      signal: () => abortSignalOf(res),
    });
    // Answered already (the response deadline passed): the late answer is dropped.
    if (res.headersSent) return;
    for (const k in out.headers) if (k !== 'Content-Type') res.setHeader(k, out.headers[k]!);
    if (out.body === undefined) res.status(out.status).end();
    // JSON-RPC answers to POSTs: the same bytes `res.json` would send, written directly (see sendJson).
    else if (req.method === 'POST' && out.headers['Content-Type'] === 'application/json') writeJson(res, out.status, rpcResponseJson(out.body as object));
    else res.status(out.status).json(out.body);
  }

  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    const error = bodyParserError(err) ?? toCoreError(err);
    if (error.code === 'INTERNAL') log.error('request failed', { request_id: res.locals.requestId, path: req.path, err });
    sendError(res, error);
  });

  const sseCap = deps.sseCap ?? createSseCap(deps.sseMaxPerCaller);

  async function dispatch(req: Request, res: Response, match: ReturnType<typeof safeMatch>, admission: Admission | undefined): Promise<void> {
    if (match.kind === 'not-found') {
      return sendError(res, errors.notFound(`No route ${req.method} ${req.path}; GET /api/endpoints lists them`));
    }
    if (match.kind === 'method-not-allowed') {
      res.setHeader('Allow', match.allowed.join(', '));
      return sendError(res, new CoreError('METHOD_NOT_ALLOWED', `${req.method} is not allowed on ${req.path}; use ${match.allowed.join(' or ')}`));
    }
    const { op, params } = match;
    if (hasBody(req) && req.body === undefined) {
      return sendError(res, new CoreError('UNSUPPORTED_MEDIA_TYPE', 'Send the request body as JSON with Content-Type: application/json'));
    }
    const refused = crossSiteCookieWrite(req, hosts);
    if (refused) return sendError(res, refused);
    // Express re-parses the query string on every `req.query` read: read it once.
    const query = req.query as Record<string, unknown>;
    const input = restInput(op, params, query, req.body);
    if (input instanceof CoreError) return sendError(res, input);
    const result = await pipeline.invoke(op, input, credentialsOf(req, query), {
      surface: 'rest',
      ...(admission ? { admission } : {}),
      ...(req.socket.remoteAddress ? { clientIp: req.socket.remoteAddress } : {}),
      setHeader: (name, value) => void res.append(name, value),
      cookie: (name) => cookieFrom(req.headers.cookie, name),
      requestId: res.locals.requestId as string,
      signal: () => abortSignalOf(res),
    });
    if (!result.ok) return sendError(res, result.error);
    // Answered already (the response deadline passed): the late answer is dropped.
    if (res.headersSent) return;
    writeResult(req, res, op, result.value, { sseCap, onSseSubscriber: deps.onSseSubscriber });
  }

  return app;
}

/** The REST bound: the operation's limit for this caller, said with how to raise it. */
function bodyBoundOf(op: Operation | undefined, withKey: boolean): BodyBound {
  if (!op) return { limit: BODY_LIMIT_BYTES };
  return { limit: bodyLimitOf(op, withKey), tooLarge: tooLargeMessage(op, withKey) };
}

/**
 * A transport-level refusal on `POST /api/mcp` (too large, rate limited, a malformed credential) as a JSON-RPC
 * error -32000 with the HTTP status of its code, the stable code and the limit or wait in `data`.
 */
function writeRpcRefusal(res: Response, error: CoreError, wording: Wording): void {
  setRefusalHeaders(res, error);
  const details = (error.details ?? {}) as Record<string, unknown>;
  writeJson(res, error.status, JSON.stringify(rpcErrorBody(null, RPC_ERROR.REFUSED, wording(error.message), { code: error.code, ...details })));
}

function safeMatch(registry: Registry, method: string, path: string) {
  try {
    return registry.match(method, path);
  } catch {
    return { kind: 'not-found' as const };
  }
}

/** Who holds a stream, as far as the transport can tell before the pipeline: the credential, else the client address. */
function hasBody(req: Request): boolean {
  const length = req.header('content-length');
  return (length !== undefined && length !== '0') || req.header('transfer-encoding') !== undefined;
}

/** The request's abort signal, created on first use: most handlers never look at it. */
function abortSignalOf(res: Response): AbortSignal {
  const existing = res.locals.abort as AbortController | undefined;
  if (existing) return existing.signal;
  const controller = new AbortController();
  res.locals.abort = controller;
  if (res.closed) {
    if (!res.writableFinished) controller.abort();
  } else {
    res.once('close', () => {
      if (!res.writableFinished) controller.abort();
    });
  }
  return controller.signal;
}

/**
 * Answers 503 UNAVAILABLE once `ms` pass without a response started (a store that hangs instead of
 * failing); a stream has started its response long before. The late answer is then dropped (`writeJson`
 * and `sendError` write nothing once headers are out).
 */
function answerByDeadline(req: Request, res: Response, ms: number, mcp: boolean): void {
  const timer = setTimeout(() => {
    if (res.headersSent) return;
    const error = new CoreError(
      'UNAVAILABLE',
      `No answer within ${ms} ms: a dependency of this node is slow or down. A write may still complete: read it back before sending it again`,
      { reason: 'timeout', retry_after_s: 2 },
    );
    if (!mcp) return sendError(res, error);
    res.setHeader('Retry-After', '2');
    const body = publicError(error, res.locals.requestId as string | undefined);
    // The body was parsed by now (the deadline covers the handler): answer with the request's id.
    const id = (req.body as { id?: unknown } | undefined)?.id;
    const rpcId = typeof id === 'string' || typeof id === 'number' ? id : null;
    writeJson(res, 503, JSON.stringify(rpcErrorBody(rpcId, RPC_ERROR.REFUSED, `${body.code}: ${body.message}`, { error: body })));
  }, ms);
  timer.unref();
  res.once('close', () => clearTimeout(timer));
  res.once('finish', () => clearTimeout(timer));
}
