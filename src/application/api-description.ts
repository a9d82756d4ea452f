import { catalogMap, searchEndpoints } from '../registry/catalog.js';
import type { SurfaceFilter } from '../registry/mcp-tools.js';
import { openApiOf } from '../registry/openapi.js';
import type { Registry } from '../registry/registry.js';
import type { ApiDescription } from '../registry/app-ports.js';
import type { OpenApiDocument } from '../registry/description-shapes.js';
import type { ResourceEntry } from '../domain/platform/mcp-content.js';

/** The catalogue and OpenAPI of this node's registry; `filter` (the surface controls) narrows what the catalogue lists. */
export function createApiDescription(deps: { registry: Registry; version: string; filter?: SurfaceFilter }): ApiDescription {
  let openapi: OpenApiDocument | undefined;
  return {
    searchEndpoints(query) {
      const endpoints = searchEndpoints(deps.registry, query, deps.filter);
      return { ok: true, count: endpoints.length, version: deps.version, endpoints };
    },
    // The OpenAPI document lists every operation whatever the filter: it describes the node's REST surface.
    openapi: () => (openapi ??= openApiOf(deps.registry)),
    endpointMap: () => catalogMap(deps.registry, deps.version, deps.filter),
  };
}

/** The API catalogue as MCP resources: the same documents as `/api/endpoints` (narrowed by the surface controls) and `/api/openapi.json`. */
export function catalogResources(description: ApiDescription): ResourceEntry[] {
  return [
    {
      uri: 'core://catalog/endpoints',
      name: 'endpoints',
      title: 'Every operation',
      description: 'Method, path, auth, role, summary, MCP tool and action, and input JSON Schema of every operation.',
      mimeType: 'application/json',
      read: async () => JSON.stringify(description.searchEndpoints({ include_schemas: true }).endpoints),
    },
    {
      uri: 'core://catalog/openapi',
      name: 'openapi',
      title: 'OpenAPI 3.1 description',
      description: 'The OpenAPI 3.1 description of the REST surface (version 1.287.0).',
      mimeType: 'application/json',
      read: async () => JSON.stringify(description.openapi()),
    },
  ];
}
