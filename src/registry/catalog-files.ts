import { allEndpoints } from './catalog.js';
import { mcpToolsOf } from './mcp-tools.js';
import { openApiOf } from './openapi.js';
import type { Registry } from './registry.js';

/** The generated files committed under `catalog/`; a test fails when they drift from the registry. */
export function catalogFiles(registry: Registry): Record<string, string> {
  const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;
  return {
    'tools.json': json(mcpToolsOf(registry)),
    'endpoints.json': json(allEndpoints(registry, true)),
    'openapi.json': json(openApiOf(registry)),
  };
}
