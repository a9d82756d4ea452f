// What an agent pays to load this server: tokens (o200k_base) of the tools/list answer, from the built registry.
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { allTools } from '../dist/tools/index.js';
import { buildRegistry } from '../dist/src/registry/registry.js';
import { mcpToolsOf } from '../dist/src/registry/mcp-tools.js';
import { SERVER_INSTRUCTIONS } from '../dist/src/transports/mcp/instructions.js';

export function toolListTokens() {
  const registry = buildRegistry(allTools);
  const tokens = (value) => countTokens(JSON.stringify(value));
  const tools = mcpToolsOf(registry);
  const largest = tools.map((t) => ({ name: t.name, tokens: tokens(t) })).sort((a, b) => b.tokens - a.tokens)[0];
  return {
    tools: tools.length,
    tokens: tokens({ tools }),
    bytes: JSON.stringify({ tools }).length,
    largest_tool: largest,
    read_only_tokens: tokens({ tools: mcpToolsOf(registry, { readOnly: true }) }),
    instructions_tokens: countTokens(SERVER_INSTRUCTIONS),
  };
}
