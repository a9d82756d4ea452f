import { decodeHeaderValue, envelopeVersion, MCP_NAME_SOURCE, MODERN_METHODS, versionError, type RpcError } from './modern-era.js';
import { RPC_ERROR } from './rpc-codes.js';

/**
 * What Streamable HTTP refuses in a modern request whose `_meta` is well formed, in the order the
 * revision's SDK checks it: `MCP-Protocol-Version` missing or not the `_meta` version (-32020), a version
 * not spoken (-32022), `Mcp-Method` missing or not the body's method (-32020), `Mcp-Name` missing, not
 * valid Base64 or not the body's name or URI for `tools/call`, `prompts/get` and `resources/read`
 * (-32020), and last a method the era does not have (-32601). Header values are compared exactly (Node
 * has already trimmed the whitespace around them). Undefined when the request may be dispatched.
 */
export function modernHeaderError(message: { method: string; params?: unknown }, header: (name: string) => string | undefined): RpcError | undefined {
  const claimed = envelopeVersion(message.params);
  const protocol = header('mcp-protocol-version');
  if (protocol === undefined) return mismatch('the MCP-Protocol-Version header is required');
  if (protocol !== claimed) return mismatch(`MCP-Protocol-Version header value '${protocol}' does not match _meta value '${claimed}'`);
  const unsupported = versionError(claimed);
  if (unsupported) return unsupported;
  const method = header('mcp-method');
  if (method === undefined) return mismatch('the Mcp-Method header is required');
  if (method !== message.method) return mismatch(`Mcp-Method header value '${method}' does not match body value '${message.method}'`);
  const source = MCP_NAME_SOURCE[message.method];
  const params = message.params as Record<string, unknown> | undefined;
  const bodyName = source ? params?.[source] : undefined;
  if (typeof bodyName === 'string') {
    const given = header('mcp-name');
    if (given === undefined) return mismatch(`the Mcp-Name header is required for ${message.method}`);
    const name = decodeHeaderValue(given);
    if (name === undefined) return mismatch('the Mcp-Name header carries an invalid Base64 value');
    if (name !== bodyName) return mismatch(`Mcp-Name header value '${name}' does not match body value '${bodyName}'`);
  }
  if (!MODERN_METHODS.has(message.method)) return { code: RPC_ERROR.METHOD_NOT_FOUND, message: `Method not found: ${message.method}` };
  return undefined;
}

function mismatch(detail: string): RpcError {
  return { code: RPC_ERROR.HEADER_MISMATCH, message: `Header mismatch: ${detail}` };
}
