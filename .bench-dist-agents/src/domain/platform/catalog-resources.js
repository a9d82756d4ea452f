import { allEndpoints } from '../../registry/catalog.js';
/** The API catalogue as MCP resources: the same documents as `/api/endpoints` and `/api/openapi.json`. */
export function catalogResources(registry, platform) {
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
//# sourceMappingURL=catalog-resources.js.map