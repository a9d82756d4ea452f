import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { MAX_JSON_DEPTH, nestsDeeperThan, tooDeepMessage } from '../../lib/json-depth.js';

/** Content types read by the lean path; anything else (other charsets, `+json` types) goes to body-parser. */
const PLAIN_JSON = new Set(['application/json', 'application/json; charset=utf-8', 'application/json;charset=utf-8']);

/** An error shaped like body-parser's, so the app's error handler maps both the same way. */
function parserError(type: string, message: string, status: number): Error {
  return Object.assign(new Error(message), { type, status, expose: true });
}

/**
 * `express.json` with a lean path for the request nearly every client sends: `Content-Type:
 * application/json` (UTF-8), a `Content-Length` within the limit and no `Content-Encoding`. That path
 * collects the bytes and runs `JSON.parse`; body-parser's content-type parsing, charset lookup, stream
 * decoder and `on-finished` bookkeeping cost more than the parse on small bodies. Results and errors
 * are body-parser's: the same `req.body` (any JSON value, `strict: false`), `entity.parse.failed` for
 * bad JSON, `request.size.invalid` when the bytes do not match the declared length. Everything else
 * (chunked bodies, compressed bodies, other charsets, oversized declarations) goes to `fallback`.
 * Whichever path read it, a body nested more than `MAX_JSON_DEPTH` levels deep is refused
 * (`entity.too.deep`) before anything walks it recursively.
 */
export function createJsonBodyReader(limitBytes: number, fallback: RequestHandler): (req: Request, res: Response, next: NextFunction) => void {
  return function readJson(req, res, proceed) {
    const next = (error?: unknown): void => {
      if (error) return void proceed(error);
      if (nestsDeeperThan(req.body, MAX_JSON_DEPTH)) return void proceed(parserError('entity.too.deep', tooDeepMessage('The request body'), 400));
      proceed();
    };
    const type = req.headers['content-type'];
    const declared = req.headers['content-length'];
    if (type === undefined || !PLAIN_JSON.has(type.toLowerCase()) || declared === undefined || req.headers['content-encoding'] !== undefined) {
      return void fallback(req, res, next);
    }
    const length = Number(declared);
    if (!Number.isSafeInteger(length) || length <= 0 || length > limitBytes) return void fallback(req, res, next);

    const chunks: Buffer[] = [];
    let received = 0;
    let done = false;
    const finish = (error?: Error): void => {
      if (done) return;
      done = true;
      // The listeners stay: they die with the request, and `done` makes any later event a no-op.
      if (error) return void next(error);
      next();
    };
    const onData = (chunk: Buffer): void => {
      received += chunk.length;
      if (received > length) return finish(parserError('request.size.invalid', 'request size did not match content length', 400));
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      if (received !== length) return finish(parserError('request.size.invalid', 'request size did not match content length', 400));
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
  };
}
