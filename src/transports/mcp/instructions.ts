/** What an MCP client is told at `initialize`: how to start, in a few lines. */
export const SERVER_INSTRUCTIONS = [
  'Machine Compute, Chain and Contract Service. Time is counted in ticks of 777 ms (1.287 Hz).',
  'Start: core_account (action mint_demo_key) gives a key once; over stdio this session uses it at once, over HTTP send it as Authorization: Bearer <key> (or X-API-Key).',
  "A private machine's share or unlock token (shr_/unl_) goes in the share_token argument of the reading tools (or the X-Share-Token header), never as the key.",
  'Then core_spin_up creates a machine with an append-only, hash-chained audit log; core_chain_write appends to it.',
  'core_api_catalog finds any operation by text, tag, method or path; core_http calls any operation by method and path.',
  'Failures come back as isError results whose text starts with a stable code (VALIDATION_FAILED, UNAUTHENTICATED, NOT_FOUND, ...).',
  'A tool with actions lists them as name(fields it requires); other fields are optional, unknown ones refused. slug names a machine (1-64 of a-z, 0-9, "-");',
  'limit and cursor page a list (pass back next_cursor). Exact bounds, patterns, paths and auth: core_api_catalog (include_schemas: true).',
  'The contract definition is spelled out once, in the definition field of core_contract_deploy; every tool that takes one checks it in full.',
  'Guides: the core_kernel prompt (how to use compute, chains and contracts well) and the core://skills/* resources (one task each).',
].join('\n');
