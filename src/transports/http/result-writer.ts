import type { Request, Response } from 'express';
import { publicError, type CoreError } from '../../errors.js';
import type { RawBody } from '../../lib/handler-results.js';
import { isSseSource } from '../../pipeline/collect-events.js';
import type { Operation } from '../../registry/registry.js';
import { challengeFor } from './oauth-route.js';
import type { SseCap } from './sse-cap.js';
import { HEARTBEAT_MS, streamSse, type SseSubscriberHook } from './sse.js';

/** What writing a stream needs: the open-stream cap and the subscriber hook (metrics). */
export interface StreamWriting {
  sseCap?: SseCap | undefined;
  onSseSubscriber?: SseSubscriberHook | undefined;
}

/**
 * Writes an operation's answer over HTTP by its response kind: a stream (counted against the caller's
 * open streams), a raw body with its content type, else JSON. The REST routes and the site proxy both
 * answer through it, so an operation reads the same through either.
 */
export function writeResult(req: Request, res: Response, op: Operation, value: unknown, streams: StreamWriting): void {
  if (op.response.kind === 'stream' && isSseSource(value)) {
    const refused = streams.sseCap?.admit(req, res);
    if (refused) return sendError(res, refused);
    return streamSse(req, res, value, HEARTBEAT_MS, streams.onSseSubscriber);
  }
  if (op.response.kind === 'raw') {
    const raw = value as RawBody;
    res
      .status(200)
      .type(raw.contentType)
      .send(typeof raw.body === 'string' ? raw.body : Buffer.from(raw.body));
    return;
  }
  sendJson(req, res, value);
}

/** A refusal as `{ error }` with its status and headers; once a response has started, only its end. */
export function sendError(res: Response, error: CoreError): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  setRefusalHeaders(res, error);
  res.status(error.status).json({ error: publicError(error, res.locals.requestId as string | undefined) });
}

/** What a refusal tells a client in its headers on every route: when to retry, how to authenticate. */
export function setRefusalHeaders(res: Response, error: CoreError): void {
  const challenge = challengeFor(res, error);
  if (challenge) res.setHeader('WWW-Authenticate', challenge);
  const retry = (error.details as { retry_after_s?: unknown } | undefined)?.retry_after_s;
  if ((error.status === 429 || error.status === 503) && typeof retry === 'number') res.setHeader('Retry-After', String(Math.max(1, Math.ceil(retry))));
}

/**
 * `res.status(200).json(value)` with the same bytes and headers (`Content-Type: application/json;
 * charset=utf-8`, `Content-Length`), written directly: Express's `json`/`send` (content-type parsing,
 * mime lookup, charset rewrite, freshness check) cost about as much as the rest of a cheap write in the
 * append profile. Only for writes (never fresh, never HEAD), with no replacer/spaces/escape configured
 * and no Content-Type set by the handler; anything else takes Express's path.
 */
export function sendJson(req: Request, res: Response, value: unknown): void {
  const body = req.method === 'GET' || req.method === 'HEAD' || res.hasHeader('Content-Type') ? undefined : JSON.stringify(value);
  if (body === undefined) {
    res.status(200).json(value);
    return;
  }
  writeJson(res, 200, body);
}

/** A JSON body already serialized; nothing once headers are out (a late answer after the deadline). */
export function writeJson(res: Response, status: number, body: string): void {
  if (res.headersSent) return;
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}
