import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { CallToolResult, JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../../log.js';
import type { StdioKey } from './stdio-key.js';
import { claimsModern, MCP_NAME_SOURCE, META_PROTOCOL_VERSION, requestMeta } from './modern-era.js';
import { RPC_ERROR } from './rpc-codes.js';

type Message = JSONRPCMessage & { id?: string | number; method?: string; params?: { requestId?: string | number } };

export interface StdioRelayOptions {
  /** The running server's `POST /api/mcp`. */
  mcpUrl: string;
  /** The caller's key (`CORE_API_KEY`, or one this session minted), sent as the bearer token of every request. */
  key?: StdioKey;
  log: Logger;
  /** Called once the client is gone and every request relayed has been answered. */
  onDone(code: number): void;
}

/**
 * MCP over stdio for a data directory that a running `core-server serve` holds: each message read from
 * stdin is POSTed to that server's MCP endpoint and its answer written to stdout, so the client works
 * on the same data as the REST API. The server's own checks apply (its toolsets, its read-only mode).
 * If the server does not answer `initialize`, the client gets a JSON-RPC error saying why and this
 * process exits 1: no client is left holding an initialized session that cannot work.
 */
export async function relayStdio(opts: StdioRelayOptions): Promise<void> {
  const transport = new StdioServerTransport();
  const inFlight = new Map<string | number, AbortController>();
  let protocolVersion: string | undefined;
  let ended = false;
  let failed = false;

  const finishIfIdle = () => {
    if (ended && inFlight.size === 0) opts.onDone(failed ? 1 : 0);
  };

  async function relay(message: Message): Promise<void> {
    const isRequest = message.method !== undefined && message.id !== undefined;
    // A cancelled request: drop its HTTP request, which aborts the call on the server.
    if (message.method === 'notifications/cancelled' && message.params?.requestId !== undefined) {
      inFlight.get(message.params.requestId)?.abort();
    }
    const abort = new AbortController();
    if (isRequest) inFlight.set(message.id!, abort);
    try {
      const res = await fetch(opts.mcpUrl, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
          ...(opts.key?.current() ? { Authorization: `Bearer ${opts.key.current()}` } : {}),
          ...(claimsModern(message.params) ? modernHeaders(message) : protocolVersion ? { 'MCP-Protocol-Version': protocolVersion } : {}),
        },
        body: JSON.stringify(message),
        signal: abort.signal,
      });
      if (!isRequest) return;
      const text = await res.text();
      let answer: Message;
      try {
        answer = JSON.parse(text) as Message;
      } catch {
        throw new Error(`answered HTTP ${res.status} with a body that is not JSON-RPC`);
      }
      if (message.method === 'initialize') {
        const version = (answer as { result?: { protocolVersion?: unknown } }).result?.protocolVersion;
        if (typeof version === 'string') protocolVersion = version;
      }
      if (message.method === 'tools/call' && opts.key && 'result' in answer) {
        const params = message.params as { name?: unknown; arguments?: Record<string, unknown> } | undefined;
        const result = answer.result as CallToolResult;
        if (typeof params?.name === 'string') answer = { ...answer, result: await opts.key.observe(params.name, params.arguments, result) } as Message;
      }
      // Transport-level refusals (400, 406, ...) carry id null: give the client its own id back.
      await transport.send({ ...answer, id: message.id } as JSONRPCMessage);
    } catch (err) {
      if (!isRequest || abort.signal.aborted) return;
      const reason = `The core-server holding this data directory did not answer at ${opts.mcpUrl}: ${describe(err)}. Is it still running?`;
      opts.log.error('relay to the running server failed', { url: opts.mcpUrl, method: message.method, err });
      await transport.send({ jsonrpc: '2.0', id: message.id!, error: { code: RPC_ERROR.REFUSED, message: reason } });
      if (message.method === 'initialize') {
        failed = true;
        ended = true;
      }
    } finally {
      if (isRequest) inFlight.delete(message.id!);
      finishIfIdle();
    }
  }

  transport.onmessage = (message) => {
    // Answers from the client (to server-initiated requests) have nowhere to go: this endpoint sends none.
    if ((message as Message).method === undefined) return;
    void relay(message as Message);
  };
  transport.onerror = (err) => opts.log.warn('unreadable message on stdin', { err });
  process.stdin.once('end', () => {
    ended = true;
    finishIfIdle();
  });
  await transport.start();
  opts.log.info('relaying MCP over stdio to the running server', { url: opts.mcpUrl });
}

/**
 * The headers Streamable HTTP wants beside a modern-era message: its version, method and (for a call, a
 * read or a prompt) the name it targets, Base64-wrapped when it is not a plain header value.
 */
export function modernHeaders(message: { method?: string; params?: unknown }): Record<string, string> {
  const headers: Record<string, string> = {};
  const version = requestMeta(message.params)?.[META_PROTOCOL_VERSION];
  if (typeof version === 'string') headers['MCP-Protocol-Version'] = version;
  if (message.method !== undefined) headers['Mcp-Method'] = message.method;
  const source = message.method === undefined ? undefined : MCP_NAME_SOURCE[message.method];
  const name = source ? (message.params as Record<string, unknown>)[source] : undefined;
  if (typeof name === 'string') headers['Mcp-Name'] = headerSafe(name) ? name : `=?base64?${Buffer.from(name, 'utf8').toString('base64')}?=`;
  return headers;
}

/** Visible ASCII and inner spaces, and not itself shaped like the Base64 sentinel. */
function headerSafe(value: string): boolean {
  return /^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/.test(value) && !(value.startsWith('=?base64?') && value.endsWith('?='));
}

function describe(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  if (cause?.code) return cause.code;
  return err instanceof Error ? err.message : String(err);
}
