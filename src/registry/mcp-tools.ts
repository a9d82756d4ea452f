import type { JsonSchema } from './json-schema.js';
import type { Operation, Registry } from './registry.js';
import type { ToolDef } from './types.js';

/** A tool as `tools/list` shows it. */
export interface McpToolDescriptor {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonSchema & { type: 'object' };
  annotations: {
    title: string;
    readOnlyHint: boolean;
    destructiveHint: boolean;
    idempotentHint: boolean;
    openWorldHint: boolean;
  };
}

export interface SurfaceFilter {
  /** Only tools of these toolsets (`CORE_TOOLSETS`); `platform` is always kept. */
  toolsets?: string[];
  /** Only tools whose every action is a read (`CORE_READ_ONLY`). */
  readOnly?: boolean;
}

/** The tools a client sees under the surface controls. */
export function visibleTools(registry: Registry, filter: SurfaceFilter = {}): ToolDef[] {
  return registry.tools.filter((tool) => {
    if (filter.toolsets && tool.toolset !== 'platform' && !filter.toolsets.includes(tool.toolset)) return false;
    if (filter.readOnly && !tool.actions.every((a) => a.method === 'GET')) return false;
    return true;
  });
}

export function mcpToolsOf(registry: Registry, filter: SurfaceFilter = {}): McpToolDescriptor[] {
  return visibleTools(registry, filter).map((tool) => descriptorOf(registry, tool));
}

export function descriptorOf(registry: Registry, tool: ToolDef): McpToolDescriptor {
  const ops = [...registry.actionsOf(tool).values()];
  const readOnly = ops.every((op) => op.method === 'GET');
  return {
    name: tool.name,
    title: tool.title,
    description: describe(tool, ops),
    inputSchema: ops.length === 1 ? singleSchema(ops[0]!) : mergedSchema(ops),
    annotations: {
      title: tool.title,
      readOnlyHint: readOnly,
      destructiveHint: !readOnly && ops.some((op) => op.def.destructive === true || op.method === 'DELETE'),
      idempotentHint: ops.every((op) => op.method === 'GET' || op.def.idempotent === true),
      openWorldHint: ops.some((op) => op.def.openWorld === true),
    },
  };
}

function describe(tool: ToolDef, ops: Operation[]): string {
  if (ops.length === 1) {
    const op = ops[0]!;
    return `${tool.description}\n\n${op.method} ${op.path}${authNote(op)}`;
  }
  const lines = ops.map((op) => `- ${op.action}: ${op.def.summary} (${op.method} ${op.path}${authNote(op)})`);
  return `${tool.description}\n\nActions (pass "action" plus that action's fields):\n${lines.join('\n')}`;
}

function authNote(op: Operation): string {
  const parts: string[] = [];
  if (op.def.auth === 'bearer') parts.push('key required');
  if (op.def.role) parts.push(`${op.def.role} role`);
  return parts.length > 0 ? `; ${parts.join(', ')}` : '';
}

function singleSchema(op: Operation): McpToolDescriptor['inputSchema'] {
  return { ...op.inputSchema, type: 'object', additionalProperties: false };
}

/**
 * A flat object with an `action` enum: MCP needs `type: object` at the top, so the actions' fields are
 * merged; a field whose schema differs between actions becomes `anyOf`. Which fields each action needs
 * is stated in the field descriptions; the action's own schema checks the call.
 */
function withoutDescriptions(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutDescriptions);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).filter(([k]) => k !== 'description').map(([k, v]) => [k, withoutDescriptions(v)]));
}

function mergedSchema(ops: Operation[]): McpToolDescriptor['inputSchema'] {
  const properties: Record<string, JsonSchema> = {
    action: {
      type: 'string',
      enum: ops.map((op) => op.action),
      description: 'Which action to run; see the tool description.',
    },
  };
  const variants = new Map<string, JsonSchema[]>();
  const usedBy = new Map<string, { required: string[]; optional: string[] }>();
  for (const op of ops) {
    const props = (op.inputSchema.properties ?? {}) as Record<string, JsonSchema>;
    const required = new Set((op.inputSchema.required ?? []) as string[]);
    for (const [name, schema] of Object.entries(props)) {
      const list = variants.get(name) ?? [];
      // Schemas that differ only in their descriptions are one schema: an agent reads each once.
      if (!list.some((s) => JSON.stringify(withoutDescriptions(s)) === JSON.stringify(withoutDescriptions(schema)))) list.push(schema);
      variants.set(name, list);
      const use = usedBy.get(name) ?? { required: [], optional: [] };
      (required.has(name) ? use.required : use.optional).push(op.action);
      usedBy.set(name, use);
    }
  }
  for (const [name, list] of variants) {
    const use = usedBy.get(name)!;
    const note = [
      use.required.length > 0 ? `required by ${use.required.join(', ')}` : '',
      use.optional.length > 0 ? `optional for ${use.optional.join(', ')}` : '',
    ]
      .filter(Boolean)
      .join('; ');
    const base: JsonSchema = list.length === 1 ? { ...list[0] } : { anyOf: list };
    const description = typeof list[0]?.description === 'string' ? `${list[0].description} (${note})` : `(${note})`;
    properties[name] = { ...base, description };
  }
  return { type: 'object', properties, required: ['action'], additionalProperties: false };
}
