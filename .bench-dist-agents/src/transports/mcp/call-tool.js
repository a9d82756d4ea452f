import { errors, publicError } from '../../errors.js';
import { collectEvents, isSseSource } from '../../pipeline/collect-events.js';
import { visibleTools } from '../../registry/mcp-tools.js';
/** Thrown for a tool name the surface does not serve; transports turn it into JSON-RPC -32602. */
export class UnknownToolError extends Error {
    tool;
    constructor(tool) {
        super(`Unknown tool: ${tool}`);
        this.tool = tool;
    }
}
/** Runs one `tools/call` through the pipeline; every failure after the tool is found is an `isError` result. */
export async function callTool(surface, name, args, creds, opts) {
    const tool = surface.registry.toolByName.get(name);
    if (!tool || !visibleTools(surface.registry, surface.filter).includes(tool))
        throw new UnknownToolError(name);
    const actions = surface.registry.actionsOf(tool);
    let op;
    let input = { ...(args ?? {}) };
    if (actions.size === 1) {
        op = actions.values().next().value;
    }
    else {
        const { action, ...rest } = input;
        op = typeof action === 'string' ? actions.get(action) : undefined;
        if (!op) {
            const names = [...actions.keys()].join(', ');
            return errorResult(errors.validation(`"action" must be one of: ${names}`, {
                issues: [{ path: 'action', message: `expected one of ${names}`, code: 'invalid_value' }],
            }), opts.requestId);
        }
        input = rest;
    }
    const result = await surface.pipeline.invoke(op, input, creds, opts);
    if (!result.ok)
        return errorResult(result.error, result.requestId);
    const signal = typeof opts.signal === 'function' ? opts.signal() : opts.signal;
    return successResult(op, result.value, input, signal);
}
async function successResult(op, value, input, signal) {
    if (op.def.stream && isSseSource(value)) {
        const collected = await collectEvents(value, {
            maxEvents: typeof input.max_events === 'number' ? input.max_events : 20,
            maxMs: typeof input.max_ms === 'number' ? input.max_ms : 5000,
            ...(typeof input.last_event_id === 'string' ? { lastEventId: input.last_event_id } : {}),
            ...(signal ? { signal } : {}),
        });
        return jsonResult({ ok: true, ...collected });
    }
    if (op.def.produces) {
        const raw = value;
        const text = typeof raw.body === 'string' ? raw.body : Buffer.from(raw.body).toString('base64');
        return {
            content: [{ type: 'text', text }],
            structuredContent: { content_type: raw.contentType, encoding: typeof raw.body === 'string' ? 'utf8' : 'base64', body: text },
        };
    }
    return jsonResult(value);
}
export function jsonResult(value) {
    const structured = typeof value === 'object' && value !== null && !Array.isArray(value) ? value : { value };
    return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: structured };
}
export function errorResult(error, requestId) {
    const body = publicError(error, requestId);
    return {
        isError: true,
        content: [{ type: 'text', text: `${body.code}: ${body.message}` }],
        structuredContent: { error: body },
    };
}
//# sourceMappingURL=call-tool.js.map