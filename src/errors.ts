import { StoreUnavailableError } from './storage/port.js';
import { readTokenAsKeyReason, type ReadTokenKind } from './domain/chain/read-tokens.js';

/** Stable error codes. The HTTP status of each is fixed by `STATUS_OF`. */
export const ERROR_CODES = [
  'VALIDATION_FAILED',
  'UNAUTHENTICATED',
  'FORBIDDEN',
  'NOT_FOUND',
  'METHOD_NOT_ALLOWED',
  'CONFLICT',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'UNPROCESSABLE',
  'RATE_LIMITED',
  'QUOTA_EXCEEDED',
  'INTERNAL',
  'NOT_IMPLEMENTED',
  'UNAVAILABLE',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export const STATUS_OF: Record<ErrorCode, number> = {
  VALIDATION_FAILED: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  UNPROCESSABLE: 422,
  RATE_LIMITED: 429,
  QUOTA_EXCEEDED: 429,
  INTERNAL: 500,
  NOT_IMPLEMENTED: 501,
  UNAVAILABLE: 503,
};

/**
 * Codes whose message is hidden behind a fixed text. UNAVAILABLE is shown: every UNAVAILABLE is made
 * here or by the platform service from text written for callers (see `unavailableOf`).
 */
const HIDDEN_MESSAGE: Partial<Record<ErrorCode, string>> = {
  INTERNAL: 'Internal error; the request id identifies it in the server log',
};

/** The spec's words for every refused B operation: each 401 message begins with them, then says what to do. */
export const UNAUTHENTICATED_MESSAGE = 'Missing or invalid key';

const HOW_TO_GET_A_KEY = 'mint a demo key with POST /api/demo-key/mint, which needs none, and send it as "Authorization: Bearer <key>"';

/** No credential was sent to an operation that needs one. */
export const NO_KEY_MESSAGE = `${UNAUTHENTICATED_MESSAGE}: this operation needs a key; ${HOW_TO_GET_A_KEY}`;

/**
 * Why a bearer value that was sent did not count, said so an agent holding an old key can recover on
 * its own: minting a demo key needs no key.
 */
export const UNKNOWN_KEY_MESSAGE = `${UNAUTHENTICATED_MESSAGE}: the key sent is not known to this server's store (revoked, expired, or minted by another server or data directory); send a valid key, or ${HOW_TO_GET_A_KEY}`;

/** An Authorization header that is not `Bearer <key>` (`Basic ...`, two words, a bare value). */
export const MALFORMED_KEY_MESSAGE = `${UNAUTHENTICATED_MESSAGE}: the Authorization header is not of the form "Bearer <key>"; send "Authorization: Bearer <key>" (or "X-API-Key: <key>"), or ${HOW_TO_GET_A_KEY}`;

/** The one error class of the service. Expected failures are thrown as this; anything else becomes INTERNAL. */
export class CoreError extends Error {
  readonly code: ErrorCode;
  readonly details: unknown;
  readonly status: number;

  constructor(code: ErrorCode, message: string, details?: unknown, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CoreError';
    this.code = code;
    this.details = details;
    this.status = STATUS_OF[code];
  }
}

export interface ErrorBody {
  code: ErrorCode;
  message: string;
  details?: unknown;
  request_id?: string;
}

/**
 * Wraps anything thrown into a CoreError: a store that cannot serve (`StoreUnavailableError`) becomes
 * UNAVAILABLE (503, `details.retry_after_s`); unknown errors become INTERNAL with the cause kept.
 */
export function toCoreError(err: unknown): CoreError {
  if (err instanceof CoreError) return err;
  if (err instanceof StoreUnavailableError) return unavailableOf(err);
  return new CoreError('INTERNAL', 'Internal error', undefined, { cause: err });
}

/** What the caller is told per reason; the adapter's own words follow, scrubbed of anything URL-like. */
const UNAVAILABLE_LEAD: Record<StoreUnavailableError['reason'], string> = {
  unreachable: 'The database is unreachable, so this request was not carried out and nothing of it was stored',
  full: 'The data disk is full, so this write was refused and nothing of it was stored',
};

/** `postgres://user:secret@host/db` and the like: never shown, whatever an adapter put in its message. */
const URL_LIKE = /\b[a-z][a-z0-9+.-]*:\/\/\S+/gi;

/**
 * The 503 for a store that cannot serve: says what is down and that nothing was stored, then the
 * adapter's detail (with connection strings cut out), and when to retry.
 */
export function unavailableOf(err: StoreUnavailableError): CoreError {
  const detail = err.message.replace(URL_LIKE, '[address hidden]').slice(0, 300);
  const retryAfterS = Math.max(1, Math.ceil(err.retryAfterS));
  return new CoreError(
    'UNAVAILABLE',
    `${UNAVAILABLE_LEAD[err.reason]} (${detail}); retry in ${retryAfterS} s`,
    { reason: err.reason, retry_after_s: retryAfterS },
    { cause: err },
  );
}

/** The error as shown to a caller: hidden codes never leak their message or details. */
export function publicError(err: CoreError, requestId?: string): ErrorBody {
  const hidden = HIDDEN_MESSAGE[err.code];
  const body: ErrorBody = { code: err.code, message: hidden ?? err.message };
  if (!hidden && err.details !== undefined) body.details = err.details;
  if (requestId) body.request_id = requestId;
  return body;
}

export const errors = {
  validation: (message: string, details?: unknown) => new CoreError('VALIDATION_FAILED', message, details),
  /** Pass the caller: one whose bearer value was unknown is told so, instead of "missing or invalid". */
  unauthenticated: (caller?: { unknownCredential?: boolean; malformedCredential?: boolean; readTokenAsKey?: ReadTokenKind }) =>
    new CoreError(
      'UNAUTHENTICATED',
      caller?.readTokenAsKey
        ? `${UNAUTHENTICATED_MESSAGE}: ${readTokenAsKeyReason(caller.readTokenAsKey)}`
        : caller?.malformedCredential
          ? MALFORMED_KEY_MESSAGE
          : caller?.unknownCredential
            ? UNKNOWN_KEY_MESSAGE
            : NO_KEY_MESSAGE,
    ),
  forbidden: (message: string) => new CoreError('FORBIDDEN', message),
  notFound: (message: string, details?: unknown) => new CoreError('NOT_FOUND', message, details),
  conflict: (message: string, details?: unknown) => new CoreError('CONFLICT', message, details),
  unprocessable: (message: string, details?: unknown) => new CoreError('UNPROCESSABLE', message, details),
};
