import type { ResourceEntry } from './mcp-content.js';
import type { PlatformService } from './platform.service.js';

/** The API catalogue as MCP resources: the same documents as `/api/endpoints` (narrowed by the surface controls) and `/api/openapi.json`. */
export function catalogResources(platform: PlatformService): ResourceEntry[] {
  return [
    {
      uri: 'core://catalog/endpoints',
      name: 'endpoints',
      title: 'Every operation',
      description: 'Method, path, auth, role, summary, MCP tool and action, and input JSON Schema of every operation.',
      mimeType: 'application/json',
      read: async () => JSON.stringify(platform.searchEndpoints({ include_schemas: true }).endpoints),
    },
    {
      uri: 'core://catalog/openapi',
      name: 'openapi',
      title: 'OpenAPI 3.1 description',
      description: 'The OpenAPI 3.1 description of the REST surface (version 1.287.0).',
      mimeType: 'application/json',
      read: async () => JSON.stringify(platform.openapi()),
    },
  ];
}
