import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { MAX_JSON_DEPTH, nestsDeeperThan, tooDeepMessage } from '../../lib/json-depth.js';

/** Content types read by the lean path; anything else (other charsets, `+json` types) goes to body-parser. */
const PLAIN_JSON = new Set(['application/json', 'application/json; charset=utf-8', 'application/json;charset=utf-8']);

/** An error shaped like body-parser's, so the app's error handler maps both the same way. */
function parserError(type: string, message: string, status: number): Error {
  return Object.assign(new Error(message), { type, status, expose: true });
}

/**
 * How much of a body is read. `limit` is the most; `refine`, when given, is asked once the first
 * `headBytes` bytes are in (a body no longer than that is never looked at, so `headBytes` must be at
 * most the smallest limit `limitOf` gives) and may only lower it: a JSON-RPC body names its method and
 * tool in its first bytes, and those set its limit (see `mcp/body-limits.ts`).
 */
export interface BodyBound {
  limit: number;
  refine?: { headBytes: number; limitOf(head: Buffer): number };
  /** The limit of a body only body-parser can read (compressed, another charset), whose head cannot be looked at; `limit` when absent. */
  fallbackLimit?: number;
  /** What the 413 says for the limit that refused the body; body-parser's wording when absent. */
  tooLarge?: (limit: number) => string;
}

/** Makes the body-parser reader used for a limit (other charsets, `+json` types, compressed bodies). */
export type FallbackFor = (limit: number) => RequestHandler;

/**
 * `express.json` with a lean path for the request nearly every client sends: `Content-Type:
 * application/json` (UTF-8) and no `Content-Encoding`, with a `Content-Length` or chunked. That path
 * collects the bytes and runs `JSON.parse`; body-parser's content-type parsing, charset lookup, stream
 * decoder and `on-finished` bookkeeping cost more than the parse on small bodies. Results and errors
 * are body-parser's: the same `req.body` (any JSON value, `strict: false`), `entity.parse.failed` for
 * bad JSON, `request.size.invalid` when the bytes do not match the declared length, `entity.too.large`
 * (413) past the limit. Everything else (compressed bodies, other charsets) goes to body-parser with
 * the bound's first limit.
 *
 * Bound before you parse: a declared length over the limit is refused before a byte is read; a body
 * that grows past it is refused the moment it does, and the socket is closed after the 413 instead of
 * being drained (`Connection: close`), so nothing past the limit is read, kept or parsed. Whichever path
 * read it, a body nested more than `MAX_JSON_DEPTH` levels deep is refused (`entity.too.deep`) before
 * anything walks it recursively.
 */
export function readJsonBody(req: Request, res: Response, proceed: NextFunction, bound: BodyBound, fallbackFor: FallbackFor): void {
  const next = (error?: unknown): void => {
    if (error) {
      if ((error as { type?: unknown }).type === 'entity.too.large') res.setHeader('Connection', 'close');
      return void proceed(error);
    }
    if (nestsDeeperThan(req.body, MAX_JSON_DEPTH)) return void proceed(parserError('entity.too.deep', tooDeepMessage('The request body'), 400));
    proceed();
  };
  let limit = bound.limit;
  // `detail` is what the 413 says (the app's error handler reads it); body-parser's own carry only `limit`.
  const tooLarge = (): Error => Object.assign(parserError('entity.too.large', 'request entity too large', 413), { limit, detail: bound.tooLarge?.(limit) });
  const type = req.headers['content-type'];
  const declared = req.headers['content-length'];
  if (
    type === undefined ||
    !PLAIN_JSON.has(type.toLowerCase()) ||
    req.headers['content-encoding'] !== undefined ||
    (declared === undefined && req.headers['transfer-encoding'] === undefined)
  ) {
    return void fallbackFor(bound.fallbackLimit ?? limit)(req, res, next);
  }
  const length = declared === undefined ? undefined : Number(declared);
  if (length !== undefined && (!Number.isSafeInteger(length) || length <= 0)) return void fallbackFor(bound.fallbackLimit ?? limit)(req, res, next);
  if (length !== undefined && length > limit) return void next(tooLarge());

  const chunks: Buffer[] = [];
  let received = 0;
  let refine = bound.refine;
  let done = false;
  const finish = (error?: Error): void => {
    if (done) return;
    done = true;
    // The listeners stay: they die with the request, and `done` makes any later event a no-op.
    if (error) return void next(error);
    next();
  };
  const onData = (chunk: Buffer): void => {
    if (done) return;
    received += chunk.length;
    if (length !== undefined && received > length) return finish(parserError('request.size.invalid', 'request size did not match content length', 400));
    chunks.push(chunk);
    if (refine && received >= refine.headBytes) {
      const head = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received);
      limit = Math.min(limit, refine.limitOf(head.subarray(0, refine.headBytes)));
      refine = undefined;
      if (length !== undefined && length > limit) return refuse();
    }
    if (received > limit) return refuse();
  };
  // Past the limit: stop reading and keep nothing; the 413 closes the connection.
  const refuse = (): void => {
    req.pause();
    chunks.length = 0;
    finish(tooLarge());
  };
  const onEnd = (): void => {
    if (length !== undefined && received !== length) return finish(parserError('request.size.invalid', 'request size did not match content length', 400));
    let text = (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received)).toString('utf8');
    // body-parser strips a byte order mark before parsing; so does this.
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    try {
      req.body = JSON.parse(text);
    } catch (error) {
      return finish(parserError('entity.parse.failed', (error as Error).message, 400));
    }
    finish();
  };
  const onError = (error: Error): void => finish(error);
  const onAborted = (): void => finish(parserError('request.aborted', 'request aborted', 400));
  req.on('data', onData);
  req.on('end', onEnd);
  req.on('error', onError);
  req.on('aborted', onAborted);
}
