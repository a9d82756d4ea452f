import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { request } from 'node:https';
import type { LookupFunction } from 'node:net';
import { ClientMetadataError } from './client-metadata-error.js';
import type { ResolvedAddress } from './resolve-host.js';

export interface PinnedGetOptions {
  url: URL;
  /** Addresses already checked: the connection goes to one of these and is never looked up again. */
  addresses: readonly ResolvedAddress[];
  /** Aborted when the time cap is reached. */
  signal: AbortSignal;
  maxBytes: number;
  userAgent: string;
  /** TEST ONLY: the one certificate authority trusted instead of the system's (CORE_OAUTH_CIMD_TEST_TRUST). */
  testCa?: string;
}

export interface PinnedGetResult {
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/**
 * Hands Node's connect the addresses that were checked, so DNS rebinding (a second lookup answering a private
 * address) cannot happen; the URL's host name still goes into SNI, the certificate check and `Host`.
 */
function pinnedLookup(addresses: readonly ResolvedAddress[]): LookupFunction {
  return (_hostname, options, callback) => {
    const first = addresses[0];
    if (!first) return callback(new Error('no checked address'), '', 4);
    if (options.all) {
      (callback as unknown as (err: null, all: ResolvedAddress[]) => void)(null, [...addresses]);
    } else callback(null, first.address, first.family);
  };
}

function isJsonType(contentType: string | undefined): boolean {
  const type = contentType?.split(';')[0]?.trim().toLowerCase();
  return type === 'application/json';
}

/** The response checks that need only the headers: 200, JSON, no encoding, not announced too large. */
function checkHead(res: IncomingMessage, url: URL, maxBytes: number): void {
  const status = res.statusCode ?? 0;
  if (status >= 300 && status < 400) {
    throw new ClientMetadataError(
      'REDIRECT_REFUSED',
      `${url.href} answered ${status} (a redirect); the document must be served at the client_id URL itself, redirects are not followed`,
    );
  }
  if (status !== 200) throw new ClientMetadataError('HTTP_STATUS', `${url.href} answered HTTP ${status}; the metadata document must be served with 200`);
  if (!isJsonType(res.headers['content-type'])) {
    const shown = res.headers['content-type'] ? `"${res.headers['content-type'].slice(0, 100)}"` : 'none';
    throw new ClientMetadataError('NOT_JSON', `${url.href} must be served as application/json; its content type is ${shown}`);
  }
  const encoding = res.headers['content-encoding'];
  if (encoding && encoding.toLowerCase() !== 'identity') {
    throw new ClientMetadataError('NOT_JSON', `${url.href} was sent with content-encoding "${encoding.slice(0, 50)}"; serve it uncompressed`);
  }
  const length = Number(res.headers['content-length']);
  if (Number.isFinite(length) && length > maxBytes) throw tooLarge(url, maxBytes);
}

function tooLarge(url: URL, maxBytes: number): ClientMetadataError {
  return new ClientMetadataError('TOO_LARGE', `the metadata document at ${url.href} is larger than ${maxBytes} bytes`);
}

function failureOf(err: unknown, url: URL, signal: AbortSignal): ClientMetadataError {
  if (err instanceof ClientMetadataError) return err;
  if (signal.aborted) return new ClientMetadataError('TIMEOUT', `fetching ${url.href} took too long`, { cause: err });
  const code = (err as NodeJS.ErrnoException).code;
  const what = code ?? (err instanceof Error ? err.message : String(err));
  return new ClientMetadataError('FETCH_FAILED', `could not fetch ${url.href}: ${what}`, { cause: err });
}

/**
 * One GET of `url` over TLS to a checked address: no redirects followed, no connection reused, the body read
 * as a stream and cut at `maxBytes`. Every failure is a ClientMetadataError; an abort of `signal` is TIMEOUT.
 */
export function pinnedHttpsGet(options: PinnedGetOptions): Promise<PinnedGetResult> {
  const { url, signal, maxBytes } = options;
  return new Promise((resolve, reject) => {
    let settled = false;
    const finish = (err: unknown, result?: PinnedGetResult) => {
      if (settled) return;
      settled = true;
      if (err !== undefined) {
        req.destroy();
        reject(failureOf(err, url, signal));
      } else if (result) resolve(result);
    };
    const req = request(
      {
        protocol: 'https:',
        hostname: url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname,
        port: url.port === '' ? 443 : Number(url.port),
        path: `${url.pathname}${url.search}`,
        method: 'GET',
        headers: { accept: 'application/json', 'user-agent': options.userAgent },
        lookup: pinnedLookup(options.addresses),
        // A fresh connection per fetch: a pooled socket could belong to an address checked for another name.
        agent: false,
        signal,
        rejectUnauthorized: true,
        ...(options.testCa ? { ca: options.testCa } : {}),
        maxHeaderSize: 16 * 1024,
      },
      (res) => {
        try {
          checkHead(res, url, maxBytes);
        } catch (err) {
          res.destroy();
          return finish(err);
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxBytes) {
            res.destroy();
            return finish(tooLarge(url, maxBytes));
          }
          chunks.push(chunk);
        });
        res.on('end', () => finish(undefined, { headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', (err) => finish(err));
        res.on('close', () => {
          if (!res.complete) finish(new Error('the connection closed before the whole body arrived'));
        });
      },
    );
    req.on('error', (err) => finish(err));
    req.end();
  });
}
