import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

import { claimsModern, discoverResult, envelopeError, envelopeVersion, MODERN_METHODS, modernResult, versionError, type ServerInfo } from './modern-era.js';
import { RPC_ERROR } from './rpc-codes.js';

type Message = { jsonrpc: '2.0'; id?: string | number; method?: string; params?: unknown; result?: object; error?: { code: number } };

export interface StdioEraOptions {
  serverInfo: ServerInfo;
  /** Whether the surface's tool list is narrowed by its settings (read when a `tools/list` answer leaves). */
  narrowed(): boolean;
}

/**
 * The stdio transport the SDK `Server` talks through, made to serve both MCP eras per message: a request
 * whose `_meta` names a protocol version is checked as revision 2026-07-28 wants (-32602 for a bad
 * envelope, -32022 for a version not spoken, -32601 for a method the era does not have), `server/discover`
 * is answered here, and the `Server`'s answer to it gets `resultType`, cache hints and the server's
 * identity. Any other message (`initialize` and what follows it) reaches the `Server` untouched, so a
 * client that probes with `server/discover` and then initializes is served in the legacy era.
 */
export function eraAwareTransport(inner: Transport, opts: StdioEraOptions): Transport {
  /** Modern requests the `Server` is answering, by id: their method says how to stamp the answer. */
  const modern = new Map<string | number, string>();
  const reply = (id: string | number, body: { result: object } | { error: unknown }) => inner.send({ jsonrpc: '2.0', id, ...body } as JSONRPCMessage);

  const outer: Transport = {
    start: () => inner.start(),
    close: () => inner.close(),
    async send(message, options) {
      const out = message as Message;
      const method = out.method === undefined && out.id !== undefined ? modern.get(out.id) : undefined;
      if (method !== undefined) {
        modern.delete(out.id!);
        if (out.result !== undefined) modernResult(method, out.result, opts.serverInfo, opts.narrowed());
        // The revision retired -32002 (resource not found): it is invalid params now.
        else if (out.error?.code === RPC_ERROR.RESOURCE_NOT_FOUND) out.error.code = RPC_ERROR.INVALID_PARAMS;
      }
      return inner.send(message, options);
    },
  };

  inner.onmessage = (message, extra) => {
    const m = message as Message;
    // A cancelled request is never answered: forget it.
    if (m.method === 'notifications/cancelled') modern.delete((m.params as { requestId?: string | number } | undefined)?.requestId ?? '');
    if (m.method === undefined || m.id === undefined || !claimsModern(m.params)) return outer.onmessage?.(message, extra);
    const refused = envelopeError(m.params) ?? versionError(envelopeVersion(m.params));
    if (refused) return void reply(m.id, { error: refused });
    if (!MODERN_METHODS.has(m.method)) return void reply(m.id, { error: { code: RPC_ERROR.METHOD_NOT_FOUND, message: `Method not found: ${m.method}` } });
    if (m.method === 'server/discover') return void reply(m.id, { result: modernResult(m.method, discoverResult(), opts.serverInfo, opts.narrowed()) });
    modern.set(m.id, m.method);
    outer.onmessage?.(message, extra);
  };
  inner.onclose = () => outer.onclose?.();
  inner.onerror = (err) => outer.onerror?.(err);
  return outer;
}
