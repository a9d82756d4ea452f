import type { Request } from 'express';

/** A body over its cap: answered 413 before more of it is read. */
export class BodyTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`The request body exceeds ${limit} bytes`);
    this.name = 'BodyTooLargeError';
  }
}

/**
 * The whole body as a string, at most `limit` bytes: an announced `content-length` over it is refused
 * before a byte is read, and an unannounced body is cut at the cap. For the OAuth endpoints, whose forms
 * are small and whose parser (URLSearchParams) is not the JSON reader of the operations.
 */
export function readBoundedBody(req: Request, limit: number): Promise<string> {
  const announced = Number(req.headers['content-length'] ?? NaN);
  if (announced > limit) return Promise.reject(new BodyTooLargeError(limit));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.off('data', onData);
        req.resume();
        reject(new BodyTooLargeError(limit));
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.once('error', reject);
  });
}
