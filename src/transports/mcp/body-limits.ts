import type { Caller } from '../../domain/identity/caller.js';
import { visibleActions, visibleTools, type SurfaceFilter } from '../../registry/mcp-tools.js';
import type { Registry } from '../../registry/registry.js';
import { bodyLimitOf, KEY_HINT, keyed, mebibytes } from '../http/body-limits.js';
import type { BodyBound } from '../http/json-body.js';
import { decodeHeaderValue } from './modern-era.js';
import { scanRpcHead } from './rpc-head.js';

/**
 * The limit of every JSON-RPC message but `tools/call` (initialize, server/discover, the lists, ping,
 * notifications, resources/read, prompts/get): they carry names, versions and capabilities, and the
 * largest a client sends (initialize, or a 2026-07-28 request with clientInfo and capabilities in its
 * `_meta`, icons included) is a few KiB. It is also the head scanned for the method, and what a
 * `tools/call` may add to its tool's own limit for the envelope (`jsonrpc`, `id`, `name`, `_meta`).
 */
export const PROTOCOL_BODY_BYTES = 64 * 1024;

const TOOLS_CALL = 'tools/call';

/**
 * Body limits on `POST /api/mcp` that follow the message and the caller, decided before `JSON.parse`:
 * - at most the caller's cap (the largest limit any visible tool has for it: 14 MiB with a key, 1 MiB
 *   without), refused from `Content-Length` alone;
 * - once the first `PROTOCOL_BODY_BYTES` are in, the limit of what they name: a `tools/call` gets its
 *   tool's (its largest action's `maxBodyBytes` for this caller) plus the envelope; an unknown or
 *   hidden tool, any other method, or a body that does not name its method there gets 64 KiB;
 * - the 2026-07-28 `Mcp-Method`/`Mcp-Name` headers only ever lower it (they are checked against the
 *   body after the parse): the limit is the smaller of what the header and the head claim, so neither
 *   can buy more than a legitimate request of this caller for the method the body begins with.
 * A body that names a tool but not where the head can see it gets the caller's cap.
 */
export function createMcpBodyLimits(registry: Registry, filter: SurfaceFilter) {
  // Computed once per surface (its registry and filter never change), not on every request: each tool's
  // limit with and without a key, and the caller caps that follow from them.
  const limits = new Map<string, { keyed: number; anonymous: number }>();
  for (const tool of visibleTools(registry, filter)) {
    const ops = visibleActions(registry, tool, filter);
    const largest = (withKey: boolean) => Math.max(...ops.map((op) => bodyLimitOf(op, withKey))) + PROTOCOL_BODY_BYTES;
    limits.set(tool.name, { keyed: largest(true), anonymous: largest(false) });
  }
  const toolLimit = (name: string, withKey: boolean): number | undefined => {
    const found = limits.get(name);
    return found && (withKey ? found.keyed : found.anonymous);
  };
  const capKeyed = Math.max(PROTOCOL_BODY_BYTES, ...[...limits.values()].map((l) => l.keyed));
  const capAnonymous = Math.max(PROTOCOL_BODY_BYTES, ...[...limits.values()].map((l) => l.anonymous));
  const capOf = (caller: Caller): number => (keyed(caller) ? capKeyed : capAnonymous);

  /** The limit for a message and what the 413 should say about it. */
  function limitFor(caller: Caller, method: string | undefined, name: string | undefined): { limit: number; why: string } {
    if (method === undefined) {
      return {
        limit: PROTOCOL_BODY_BYTES,
        why: `, and its first ${mebibytes(PROTOCOL_BODY_BYTES)} do not name its method; put "method" (and params.name for tools/call) before large fields, or send the Mcp-Method and Mcp-Name headers`,
      };
    }
    if (method !== TOOLS_CALL)
      return { limit: PROTOCOL_BODY_BYTES, why: `, the limit for ${method} (only tools/call carries large arguments); send it without large params or _meta` };
    if (name === undefined) return { limit: capOf(caller), why: capWhy(caller) };
    const limit = toolLimit(name, keyed(caller));
    if (limit === undefined) return { limit: PROTOCOL_BODY_BYTES, why: `, the limit for tools/call of ${name}, which is not a tool of this server` };
    const withKey = toolLimit(name, true)!;
    return {
      limit,
      why: withKey > limit ? `, the limit for ${name} without a key; ${KEY_HINT} to send up to ${mebibytes(withKey)}` : `, the limit for ${name}`,
    };
  }

  function capWhy(caller: Caller): string {
    return keyed(caller)
      ? ', the most this node reads for any request'
      : `, the most this node reads from a caller without a key; ${KEY_HINT} for larger tool calls`;
  }

  return {
    /** The bound for one request of this caller, with its headers. */
    boundFor(caller: Caller, header: (name: string) => string | undefined): BodyBound {
      const cap = capOf(caller);
      const claimedMethod = header('mcp-method');
      const claimedName = header('mcp-name');
      const headerName = claimedName === undefined ? undefined : decodeHeaderValue(claimedName);
      const claimed = claimedMethod === undefined ? undefined : limitFor(caller, claimedMethod, headerName);
      let current = claimed && claimed.limit < cap ? claimed : { limit: cap, why: capWhy(caller) };
      return {
        limit: current.limit,
        // A body only body-parser can read (compressed, another charset) cannot have its head looked at.
        fallbackLimit: Math.min(current.limit, PROTOCOL_BODY_BYTES),
        refine: {
          headBytes: PROTOCOL_BODY_BYTES,
          limitOf(head) {
            const seen = scanRpcHead(head);
            if (seen.method === undefined && claimed) return current.limit;
            const name = seen.method === TOOLS_CALL ? (seen.name ?? (claimedMethod === TOOLS_CALL ? headerName : undefined)) : undefined;
            const found = limitFor(caller, seen.method, name);
            if (found.limit < current.limit) current = found;
            return current.limit;
          },
        },
        tooLarge: (limit) => `The request body exceeds ${mebibytes(limit)}${current.why}`,
      };
    },
  };
}
