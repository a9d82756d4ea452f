import { allEndpoints } from './catalog.js';
import { mcpToolsOf } from './mcp-tools.js';
import { openApiOf } from './openapi.js';
/** The generated files committed under `catalog/`; a test fails when they drift from the registry. */
export function catalogFiles(registry) {
    const json = (value) => `${JSON.stringify(value, null, 2)}\n`;
    return {
        'tools.json': json(mcpToolsOf(registry)),
        'endpoints.json': json(allEndpoints(registry, true)),
        'openapi.json': json(openApiOf(registry)),
    };
}
//# sourceMappingURL=catalog-files.js.map