/**
 * Every JSON-RPC error code this server answers with, in one place: those of JSON-RPC 2.0 itself, the
 * ones MCP defines, and the one it uses for a refusal by the transport (the implementation-defined
 * server-error range, -32000..-32099).
 */
export const RPC_ERROR = {
  /** The body is JSON but not a JSON-RPC 2.0 message, or a batch (this server takes one message). */
  INVALID_REQUEST: -32600,
  /** A method this server (or this era) does not have. */
  METHOD_NOT_FOUND: -32601,
  /** Params that do not fit the method; the modern era's malformed `_meta` envelope too. */
  INVALID_PARAMS: -32602,
  /** The legacy era's "resource not found"; the modern era retired it for INVALID_PARAMS. */
  RESOURCE_NOT_FOUND: -32002,
  /**
   * Refused by the transport before any method ran: HTTP method, Origin, Accept, Content-Type, body
   * size, rate, credential, or a dependency that is down (the HTTP status and `data` say which).
   */
  REFUSED: -32000,
  /** Modern era: a header (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`) missing or not matching the body. */
  HEADER_MISMATCH: -32020,
  /** Modern era: a protocol version this server does not speak. */
  UNSUPPORTED_PROTOCOL_VERSION: -32022,
} as const;

export type RpcErrorCode = (typeof RPC_ERROR)[keyof typeof RPC_ERROR];
