import { allEndpoints } from '../../registry/catalog.js';
import type { Registry } from '../../registry/registry.js';
import type { ResourceEntry } from './mcp-content.js';
import type { PlatformService } from './platform.service.js';

/** The API catalogue as MCP resources: the same documents as `/api/endpoints` and `/api/openapi.json`. */
export function catalogResources(registry: Registry, platform: PlatformService): ResourceEntry[] {
  return [
    {
      uri: 'core://catalog/endpoints',
      name: 'endpoints',
      title: 'Every operation',
      description: 'Method, path, auth, role, summary, MCP tool and action, and input JSON Schema of every operation.',
      mimeType: 'application/json',
      read: async () => JSON.stringify(allEndpoints(registry, true)),
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
