import { StoreUnavailableError } from '../port.js';

/** Node socket errors meaning the database cannot be reached or the connection broke. */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
/** SQLSTATEs of a server going away or refusing: admin/crash shutdown, cannot connect now, too many connections. */
const SERVER_CODES = new Set(['57P01', '57P02', '57P03', '53300']);
/** What pg says when a connection ends under a query, or the pool's connect waited too long. */
const MESSAGES = [
  /connection terminated/i,
  /not currently accepting connections/i,
  /the database system is (starting up|shutting down|in recovery mode)/i,
  /timeout exceeded when trying to connect/i,
  /connection error/i,
  /not queryable/i,
  /server closed the connection/i,
];

/**
 * Whether `error` says the database is unavailable (unreachable, shutting down, out of connections, or
 * the connection broke mid-statement), as opposed to a statement it refused.
 */
export function isConnectionError(error: unknown): boolean {
  if (error instanceof StoreUnavailableError) return true;
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (SOCKET_CODES.has(code) || SERVER_CODES.has(code) || code.startsWith('08'))) return true;
  return MESSAGES.some((pattern) => pattern.test(error.message));
}

/** `error` as `StoreUnavailableError('unreachable')` when it is a connection-class error; unchanged otherwise. */
export function toStoreError(error: unknown): unknown {
  if (error instanceof StoreUnavailableError || !isConnectionError(error)) return error;
  const code = (error as { code?: unknown }).code;
  const what = typeof code === 'string' ? code : (error as Error).message.slice(0, 120);
  return new StoreUnavailableError('unreachable', `the database is unreachable (${what}); retry shortly`, 1, { cause: error });
}
