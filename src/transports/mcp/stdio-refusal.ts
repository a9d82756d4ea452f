import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { RPC_ERROR } from './rpc-codes.js';

/**
 * MCP over stdio when this process cannot serve at all (the data directory is held by a process it
 * cannot relay to): the reason goes to stderr at once, and the client's first request (its
 * `initialize`) is answered with a JSON-RPC error carrying the same reason; then `onDone(1)`. A client
 * thus shows why, instead of "connection closed" after a handshake that looked fine. A `server/discover`
 * probe gets the same error without ending the process: clients that probe fall back to `initialize`
 * on the same process, and that answer is the one they show.
 */
export async function refuseStdio(reason: string, onDone: (code: number) => void): Promise<void> {
  process.stderr.write(`${JSON.stringify({ level: 'error', msg: 'mcp cannot start', reason })}\n`);
  const transport = new StdioServerTransport();
  let answered = false;
  transport.onmessage = (message) => {
    const { id, method } = message as JSONRPCMessage & { id?: string | number; method?: string };
    if (answered || method === undefined || id === undefined) return;
    const error = { jsonrpc: '2.0' as const, id, error: { code: RPC_ERROR.REFUSED, message: reason } };
    if (method === 'server/discover') return void transport.send(error);
    answered = true;
    void transport.send(error).then(() => onDone(1));
  };
  process.stdin.once('end', () => onDone(1));
  await transport.start();
}
