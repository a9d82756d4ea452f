/** The tools a client sees under the surface controls. */
export function visibleTools(registry, filter = {}) {
    return registry.tools.filter((tool) => {
        if (filter.toolsets && tool.toolset !== 'platform' && !filter.toolsets.includes(tool.toolset))
            return false;
        if (filter.readOnly && !tool.actions.every((a) => a.method === 'GET'))
            return false;
        return true;
    });
}
export function mcpToolsOf(registry, filter = {}) {
    return visibleTools(registry, filter).map((tool) => descriptorOf(registry, tool));
}
export function descriptorOf(registry, tool) {
    const ops = [...registry.actionsOf(tool).values()];
    const readOnly = ops.every((op) => op.method === 'GET');
    return {
        name: tool.name,
        title: tool.title,
        description: describe(tool, ops),
        inputSchema: ops.length === 1 ? singleSchema(ops[0]) : mergedSchema(ops),
        annotations: {
            title: tool.title,
            readOnlyHint: readOnly,
            destructiveHint: !readOnly && ops.some((op) => op.def.destructive === true || op.method === 'DELETE'),
            idempotentHint: ops.every((op) => op.method === 'GET' || op.def.idempotent === true),
            openWorldHint: ops.some((op) => op.def.openWorld === true),
        },
    };
}
function describe(tool, ops) {
    if (ops.length === 1) {
        const op = ops[0];
        return `${tool.description}\n\n${op.method} ${op.path}${authNote(op)}`;
    }
    const lines = ops.map((op) => `- ${op.action}: ${op.def.summary} (${op.method} ${op.path}${authNote(op)})`);
    return `${tool.description}\n\nActions (pass "action" plus that action's fields):\n${lines.join('\n')}`;
}
function authNote(op) {
    const parts = [];
    if (op.def.auth === 'bearer')
        parts.push('key required');
    if (op.def.role)
        parts.push(`${op.def.role} role`);
    return parts.length > 0 ? `; ${parts.join(', ')}` : '';
}
function singleSchema(op) {
    return { ...op.inputSchema, type: 'object', additionalProperties: false };
}
/**
 * A flat object with an `action` enum: MCP needs `type: object` at the top, so the actions' fields are
 * merged; a field whose schema differs between actions becomes `anyOf`. Which fields each action needs
 * is stated in the field descriptions; the action's own schema checks the call.
 */
function mergedSchema(ops) {
    const properties = {
        action: {
            type: 'string',
            enum: ops.map((op) => op.action),
            description: 'Which action to run; see the tool description.',
        },
    };
    const variants = new Map();
    const usedBy = new Map();
    for (const op of ops) {
        const props = (op.inputSchema.properties ?? {});
        const required = new Set((op.inputSchema.required ?? []));
        for (const [name, schema] of Object.entries(props)) {
            const list = variants.get(name) ?? [];
            if (!list.some((s) => JSON.stringify(s) === JSON.stringify(schema)))
                list.push(schema);
            variants.set(name, list);
            const use = usedBy.get(name) ?? { required: [], optional: [] };
            (required.has(name) ? use.required : use.optional).push(op.action);
            usedBy.set(name, use);
        }
    }
    for (const [name, list] of variants) {
        const use = usedBy.get(name);
        const note = [
            use.required.length > 0 ? `required by ${use.required.join(', ')}` : '',
            use.optional.length > 0 ? `optional for ${use.optional.join(', ')}` : '',
        ]
            .filter(Boolean)
            .join('; ');
        const base = list.length === 1 ? { ...list[0] } : { anyOf: list };
        const description = typeof list[0]?.description === 'string' ? `${list[0].description} (${note})` : `(${note})`;
        properties[name] = { ...base, description };
    }
    return { type: 'object', properties, required: ['action'], additionalProperties: false };
}
//# sourceMappingURL=mcp-tools.js.map