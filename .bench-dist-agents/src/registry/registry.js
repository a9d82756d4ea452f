import FindMyWay from 'find-my-way';
import { propertyTypes, toJsonSchema } from './json-schema.js';
export const TRANSPORT_ROUTES = [
    {
        method: 'POST',
        path: '/api/mcp',
        auth: 'optional bearer (per tool)',
        summary: 'MCP over Streamable HTTP (JSON-RPC 2.0): initialize, ping, tools/list and tools/call for the 57 tools.',
    },
];
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
/** Derives a tool-local action name from an operation id: `chain.appendEvent` -> `append_event`. */
export function actionNameOf(def) {
    if (def.action)
        return def.action;
    const verb = def.id.slice(def.id.indexOf('.') + 1);
    return verb.replace(/([a-z0-9])([A-Z])/g, '$1_$2').replace(/[.-]/g, '_').toLowerCase();
}
export function paramsOf(path) {
    return [...path.matchAll(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g)].map((m) => m[1]);
}
/** Builds the registry and its route table; throws on any declaration error (checked at start and in tests). */
export function buildRegistry(tools) {
    const router = FindMyWay({ ignoreTrailingSlash: true, caseSensitive: true, maxParamLength: 512 });
    const operations = [];
    const byId = new Map();
    const toolByName = new Map();
    const actionsByTool = new Map();
    const routeKeys = new Set();
    for (const tool of tools) {
        if (toolByName.has(tool.name))
            throw new Error(`duplicate tool ${tool.name}`);
        toolByName.set(tool.name, tool);
        const actions = new Map();
        actionsByTool.set(tool, actions);
        for (const def of tool.actions) {
            const action = actionNameOf(def);
            if (actions.has(action))
                throw new Error(`duplicate action ${action} in ${tool.name}`);
            if (byId.has(def.id))
                throw new Error(`duplicate operation id ${def.id}`);
            const routeKey = `${def.method} ${def.path.replace(/\{[^}]+\}/g, '{}')}`;
            if (routeKeys.has(routeKey))
                throw new Error(`duplicate route ${def.method} ${def.path}`);
            routeKeys.add(routeKey);
            const pathParams = paramsOf(def.path);
            for (const p of pathParams) {
                if (!(p in def.input.shape))
                    throw new Error(`${def.id}: path param {${p}} missing from input`);
            }
            const inputSchema = toJsonSchema(def.input, 'input');
            const op = {
                id: def.id,
                tool,
                action,
                def,
                method: def.method,
                path: def.path,
                pathParams,
                strictInput: def.input.strict(),
                inputSchema,
                outputSchema: toJsonSchema(def.output, 'output'),
                fieldTypes: propertyTypes(inputSchema),
            };
            operations.push(op);
            byId.set(op.id, op);
            actions.set(action, op);
            router.on(def.method, def.path.replace(/\{([^}]+)\}/g, ':$1'), () => undefined, op);
        }
    }
    const find = (method, path) => router.find(method, path);
    return {
        tools,
        operations,
        byId,
        toolByName,
        actionsOf: (tool) => actionsByTool.get(tool) ?? new Map(),
        match(method, path) {
            const hit = find(method, path);
            if (hit)
                return { kind: 'found', op: hit.store, params: hit.params };
            const allowed = METHODS.filter((m) => m !== method && find(m, path));
            return allowed.length > 0 ? { kind: 'method-not-allowed', allowed } : { kind: 'not-found' };
        },
    };
}
//# sourceMappingURL=registry.js.map