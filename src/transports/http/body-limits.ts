import type { Caller } from '../../domain/identity/caller.js';
import type { Operation } from '../../registry/registry.js';

/** The limit of every operation that declares no `maxBodyBytes` (body-parser's `1mb`). */
export const DEFAULT_BODY_BYTES = 1024 * 1024;

/**
 * The most a caller without a key (anonymous, or a key this node does not know) may send to any
 * operation: the default limit. The larger declared limits (a solver's 400×400 matrix, 7 MiB; a proof
 * of it, 14 MiB) are for callers a rate bucket of their own answers for; a demo key is free to mint.
 */
export const ANONYMOUS_BODY_BYTES = DEFAULT_BODY_BYTES;

/** Whether the caller has an identity of its own (key, session), which the larger body limits need. */
export function keyed(caller: Caller): boolean {
  return caller.uid !== null;
}

/** The largest body a caller with (or without) a key may send to this operation: its declared limit, capped without a key. */
export function bodyLimitOf(op: Operation, withKey: boolean): number {
  const declared = op.def.maxBodyBytes ?? DEFAULT_BODY_BYTES;
  return withKey ? declared : Math.min(declared, ANONYMOUS_BODY_BYTES);
}

/** How a caller without a key gets the larger limits. */
export const KEY_HINT = 'send a key (mint one with POST /api/demo-key/mint)';

/** What a REST 413 says: the limit, and how to get under it. */
export function tooLargeMessage(op: Operation, withKey: boolean): (limit: number) => string {
  const declared = bodyLimitOf(op, true);
  return (limit) =>
    `The request body exceeds ${mebibytes(limit)}${!withKey && declared > limit ? `, the limit without a key; ${KEY_HINT} to send up to ${mebibytes(declared)}` : ''}`;
}

/** `1048576` -> `1 MiB`; `65536` -> `0.06 MiB` is unhelpful, so small limits are said in KiB. */
export function mebibytes(bytes: number): string {
  return bytes < 2 ** 20 ? `${+(bytes / 1024).toFixed(2)} KiB` : `${+(bytes / 2 ** 20).toFixed(2)} MiB`;
}
