import { TRANSPORT_ROUTES } from './registry.js';
export function entryOf(op, withSchema) {
    const entry = {
        id: op.id,
        method: op.method,
        path: op.path,
        auth: op.def.auth,
        role: op.def.role ?? null,
        summary: op.def.summary,
        tool: op.tool.name,
        action: op.action,
        toolset: op.tool.toolset,
        area: op.def.area,
        tags: tagsOf(op),
        stream: op.def.stream === true,
        produces: op.def.stream ? 'text/event-stream' : (op.def.produces ?? 'application/json'),
        available: op.def.handler !== undefined,
    };
    if (withSchema)
        entry.input_schema = op.inputSchema;
    return entry;
}
export function tagsOf(op) {
    return [...new Set([op.tool.toolset, op.def.area, op.tool.name, ...(op.def.tags ?? [])])];
}
/** Every route of the node: tool operations, then the transport routes. */
export function allEndpoints(registry, withSchema = false) {
    const entries = registry.operations.map((op) => entryOf(op, withSchema));
    for (const r of TRANSPORT_ROUTES) {
        entries.push({
            id: 'mcp.rpc',
            method: r.method,
            path: r.path,
            auth: r.auth,
            role: null,
            summary: r.summary,
            tool: null,
            action: null,
            toolset: null,
            area: 'platform',
            tags: ['platform', 'mcp'],
            stream: false,
            produces: 'application/json',
            available: true,
        });
    }
    return entries;
}
/** Filters by free text (id, path, summary, tool), tag, method and path prefix or template. */
export function searchEndpoints(registry, query) {
    const words = (query.q ?? '').toLowerCase().split(/\s+/).filter(Boolean);
    const method = query.method?.toUpperCase();
    const tag = query.tag?.toLowerCase();
    return allEndpoints(registry, query.include_schemas === true).filter((e) => {
        if (method && e.method !== method)
            return false;
        if (tag && !e.tags.some((t) => t.toLowerCase() === tag))
            return false;
        if (query.path && !pathMatches(e.path, query.path))
            return false;
        if (words.length === 0)
            return true;
        const text = `${e.id} ${e.method} ${e.path} ${e.summary} ${e.tool ?? ''} ${e.action ?? ''}`.toLowerCase();
        return words.every((w) => text.includes(w));
    });
}
/** A path query matches a template prefix (`/api/chain`) or a concrete path (`/api/chain/demo/event`). */
function pathMatches(template, query) {
    if (template.startsWith(query))
        return true;
    const pattern = new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/]+')}`);
    return pattern.test(query);
}
//# sourceMappingURL=catalog.js.map