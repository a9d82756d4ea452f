import { publicError, toCoreError } from '../../errors.js';
import { RPC_ERROR } from './rpc-codes.js';

/** A JSON-RPC error for a request the node could not serve because a dependency is down. */
export interface UnavailableRpc {
  code: number;
  /** `UNAVAILABLE: <what is down, and that nothing was stored>`, as a `tools/call` result says it. */
  message: string;
  /** `{ error }`: the same body REST answers, `details.retry_after_s` included. */
  data: { error: ReturnType<typeof publicError> };
  retryAfterS: number;
}

/**
 * When `err` is (or wraps into) UNAVAILABLE, the JSON-RPC error saying so; otherwise undefined and the
 * caller handles `err` as before. For requests that fail before a tool runs (a `resources/read` whose
 * store is down): once a tool is found, failures are `isError` results instead.
 */
export function unavailableRpcOf(err: unknown, requestId?: string): UnavailableRpc | undefined {
  const error = toCoreError(err);
  if (error.code !== 'UNAVAILABLE') return undefined;
  const body = publicError(error, requestId);
  const retry = (error.details as { retry_after_s?: unknown } | undefined)?.retry_after_s;
  return {
    code: RPC_ERROR.REFUSED,
    message: `${body.code}: ${body.message}`,
    data: { error: body },
    retryAfterS: typeof retry === 'number' ? Math.max(1, Math.ceil(retry)) : 1,
  };
}
