import { errors, type CoreError } from '../errors.js';
import type { JsonSchema } from './json-schema.js';
import type { Operation } from './registry.js';

/**
 * A share token over MCP. REST reads it from the `X-Share-Token` header or `?share_token=`; a tool call
 * has neither a header (stdio) nor a query, so the tools that can read a private machine take it as a
 * `share_token` argument, which the MCP transports move into the call's credentials before the
 * operation sees its input. Described here once and added to each such tool's descriptor.
 */
export const SHARE_TOKEN_ARG = 'share_token';

/**
 * The descriptor's field: where an agent holding a share or unlock token finds where it goes. It is a
 * shared field, like `slug`: the server instructions say once what goes in it, and its home tool spells
 * it out for a client that shows no instructions; the dozen other reading tools give it as a bare
 * string, since every agent session pays for each copy (about 18 tokens) and the name says the rest.
 */
export const SHARE_TOKEN_FIELD: JsonSchema = {
  type: 'string',
  description: "A private machine's share or unlock token (shr_/unl_), not a key",
};

/** The tool whose descriptor spells the field out: the chain reads, what a token holder reads first. */
export const SHARE_TOKEN_HOME = 'core_chain_read';

/** The field as `tool`'s descriptor gives it. */
export function shareTokenFieldOf(tool: string): JsonSchema {
  return tool === SHARE_TOKEN_HOME ? SHARE_TOKEN_FIELD : { type: SHARE_TOKEN_FIELD.type };
}

/**
 * Whether an operation reads a machine a share token can open: a public GET that needs a machine's
 * `slug` (or `motherSlug`) and no role, which `MachinesService.readable` lets a token holder
 * read; and the relay (`core_http`), whose target gets the caller's credentials, token included.
 */
export function readsWithShareToken(op: Operation): boolean {
  if (op.response.kind === 'relay') return true;
  if (op.method !== 'GET' || op.def.auth !== 'public' || op.def.role !== undefined) return false;
  // Required: a read that only filters by machine (the public contract directory) opens nothing private.
  const shape = op.def.input.shape as Record<string, { isOptional(): boolean } | undefined>;
  return [shape.slug, shape.motherSlug].some((field) => field !== undefined && !field.isOptional());
}

/** Whether a tool takes the argument: one of the actions the client sees reads with a share token. */
export function takesShareToken(ops: readonly Operation[]): boolean {
  return ops.some(readsWithShareToken);
}

/**
 * The argument taken out of a call's input: the token, and the input the operation validates (without
 * it). Undefined when the call sends none; a refusal when it is not a token's form.
 */
export function liftShareToken(input: Record<string, unknown>): { token: string; rest: Record<string, unknown> } | CoreError | undefined {
  if (!Object.hasOwn(input, SHARE_TOKEN_ARG)) return undefined;
  const { [SHARE_TOKEN_ARG]: token, ...rest } = input;
  if (typeof token !== 'string' || token.length === 0 || token.length > 256) {
    const message = 'share_token must be the share or unlock token (a string of at most 256 characters) that share_set or unlock returned';
    return errors.validation(message, { issues: [{ path: SHARE_TOKEN_ARG, message, code: 'invalid_type' }] });
  }
  return { token, rest };
}
