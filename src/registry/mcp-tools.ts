import { toJsonSchema, type JsonSchema } from './json-schema.js';
import { firstClause } from './gist.js';
import { withoutIdleNotes } from './descriptor-notes.js';
import { compactSchema, mergeSchemas, portableSchema } from './portable-schema.js';
import { withTypedBranches } from './typed-branches.js';
import type { Operation, Registry } from './registry.js';
import { isHomeOf, SHAPE_MARK, shapePointer, type SharedShape } from './shared-shapes.js';
import { SHARE_TOKEN_ARG, shareTokenFieldOf, takesShareToken } from './share-reads.js';
import type { ToolDef } from './types.js';

/** A tool as `tools/list` shows it. */
export interface McpToolDescriptor {
  name: string;
  /** What a client shows a person instead of the name (MCP 2025-06-18 `title`). */
  title: string;
  description: string;
  inputSchema: JsonSchema & { type: 'object' };
  /**
   * The hints that differ from the MCP defaults (readOnly false, destructive true, idempotent false,
   * openWorld true), and `destructiveHint: true` said outright for a tool with a destructive action, the
   * hint clients act on (a confirmation), so no writing tool goes without one.
   */
  annotations: {
    readOnlyHint?: true;
    destructiveHint?: boolean;
    idempotentHint?: true;
    openWorldHint?: false;
  };
}

export interface SurfaceFilter {
  /** Only tools of these toolsets (`CORE_TOOLSETS`); `platform` is always kept. */
  toolsets?: string[];
  /** Only the reading actions (`CORE_READ_ONLY`): a tool shows its GET actions, and `core_http` only GET. */
  readOnly?: boolean;
}

/**
 * Whether an action is served under the filter. Read-only keeps every GET and the relay (`core_http`),
 * whose calls go through the same pipeline, which refuses every non-GET target in read-only mode.
 */
export function actionVisible(op: Operation, filter: SurfaceFilter = {}): boolean {
  return !filter.readOnly || op.method === 'GET' || op.response.kind === 'relay';
}

/** The actions of a tool a client sees under the surface controls, keyed by action name. */
export function visibleActions(registry: Registry, tool: ToolDef, filter: SurfaceFilter = {}): Operation[] {
  return [...registry.actionsOf(tool).values()].filter((op) => actionVisible(op, filter));
}

/** The tools a client sees under the surface controls: those with at least one visible action. */
export function visibleTools(registry: Registry, filter: SurfaceFilter = {}): ToolDef[] {
  return registry.tools.filter((tool) => {
    if (filter.toolsets && tool.toolset !== 'platform' && !filter.toolsets.includes(tool.toolset)) return false;
    return visibleActions(registry, tool, filter).length > 0;
  });
}

export function mcpToolsOf(registry: Registry, filter: SurfaceFilter = {}): McpToolDescriptor[] {
  return visibleTools(registry, filter).map((tool) => descriptorOf(registry, tool, filter));
}

/**
 * The descriptor of one tool, which every agent session pays for in tokens: the tool's description,
 * one line per action (name, fields, summary), and a portable input schema. Paths, auth rules and the
 * full per-action schemas are in `core_api_catalog`; a shared shape is spelled out in its home tool only.
 */
export function descriptorOf(registry: Registry, tool: ToolDef, filter: SurfaceFilter = {}): McpToolDescriptor {
  const all = registry.actionsOf(tool);
  const ops = visibleActions(registry, tool, filter);
  const schemas = ops.map((op) => inputSchemaOf(op, tool, filter));
  const reads = (op: Operation) => op.method === 'GET' || (filter.readOnly === true && op.response.kind === 'relay');
  const inputSchema: McpToolDescriptor['inputSchema'] = {
    ...withTypedBranches(all.size === 1 ? schemas[0]! : mergedSchema(tool, ops, schemas)),
    type: 'object',
  };
  // The transports lift it into the call's credentials (`share-reads.ts`); no action's own schema has it.
  if (takesShareToken(ops)) inputSchema.properties = { ...(inputSchema.properties as object), [SHARE_TOKEN_ARG]: shareTokenFieldOf(tool.name) };
  return {
    name: tool.name,
    title: tool.title,
    description: all.size === 1 ? tool.description : describe(tool, ops, schemas),
    inputSchema,
    annotations: annotationsOf(ops, reads),
  };
}

/**
 * The hints, each given only where it differs from the MCP default, but for `destructiveHint`, given for
 * every tool that writes; destructive and idempotent mean something only for a tool that writes, so a
 * reading tool leaves them out.
 */
function annotationsOf(ops: Operation[], reads: (op: Operation) => boolean): McpToolDescriptor['annotations'] {
  const hints: McpToolDescriptor['annotations'] = {};
  if (ops.every(reads)) hints.readOnlyHint = true;
  else {
    hints.destructiveHint = ops.some((op) => op.def.destructive === true || op.method === 'DELETE');
    if (ops.every((op) => reads(op) || op.def.idempotent === true)) hints.idempotentHint = true;
  }
  if (!ops.some((op) => op.def.openWorld === true)) hints.openWorldHint = false;
  return hints;
}

/** An action's input as the descriptor shows it: portable, compact, shared shapes resolved to pointers. */
function inputSchemaOf(op: Operation, tool: ToolDef, filter: SurfaceFilter): JsonSchema {
  const marked = toJsonSchema(op.def.input, 'input', { markSharedShapes: true });
  const compact = compactSchema(portableSchema(marked), homeFieldsOf(marked, tool.name));
  const schema = withoutIdleNotes(resolveShapes(compact, tool.name) as JsonSchema);
  // The relay keeps its own method field; under read-only it may only name GET targets.
  if (filter.readOnly && op.response.kind === 'relay' && op.method !== 'GET') {
    const props = schema.properties as Record<string, JsonSchema> | undefined;
    if (props?.method) props.method = { ...props.method, enum: ['GET'] };
  }
  // An agent route's uid is the caller's when left out (the pipeline's `withOwnUid`): not required here.
  if (op.def.agentStore && op.pathParams.includes('uid') && Array.isArray(schema.required)) {
    const required = (schema.required as string[]).filter((name) => name !== 'uid');
    if (required.length > 0) schema.required = required;
    else delete schema.required;
  }
  return schema;
}

/** The top-level fields of an input that hold a shared shape this tool spells out (they keep their notes). */
function homeFieldsOf(schema: JsonSchema, toolName: string): Set<string> {
  const props = (schema.properties ?? {}) as Record<string, JsonSchema>;
  return new Set(
    Object.keys(props).filter((name) => {
      const shape = props[name]![SHAPE_MARK] as SharedShape | undefined;
      return shape !== undefined && isHomeOf(shape, toolName);
    }),
  );
}

/** Replaces each shared shape by a pointer to where it is spelled out (its home keeps it). */
function resolveShapes(node: unknown, toolName: string): unknown {
  if (Array.isArray(node)) return node.map((n) => resolveShapes(n, toolName));
  if (node === null || typeof node !== 'object') return node;
  const record = node as JsonSchema;
  const shape = record[SHAPE_MARK] as SharedShape | undefined;
  if (shape && !isHomeOf(shape, toolName)) return shapePointer(shape, record.description);
  return Object.fromEntries(
    Object.entries(record)
      .filter(([k]) => k !== SHAPE_MARK)
      .map(([k, v]) => [k, resolveShapes(v, toolName)]),
  );
}

/** One line per action, `name(required fields): summary`; a field every action requires is said once. */
function describe(tool: ToolDef, ops: Operation[], schemas: JsonSchema[]): string {
  const required = schemas.map((schema) => (schema.required ?? []) as string[]);
  // A field every action requires (the machine's slug, most often) is said once.
  const common = ops.length > 1 ? required[0]!.filter((f) => required.every((r) => r.includes(f))) : [];
  const lines = ops.map((op, i) => {
    const fields = required[i]!.filter((f) => !common.includes(f));
    return `${op.action}${fields.length > 0 ? `(${fields.join(', ')})` : ''}: ${firstClause(op.def.summary, 30)}`;
  });
  const every = common.length > 0 ? ` (all require ${common.join(', ')})` : '';
  return `${firstClause(tool.description, 100)}.\nActions${every}:\n${lines.join('\n')}`;
}

/**
 * A flat object with an `action` enum: MCP needs `type: object` at the top, so the actions' fields are
 * merged into one schema each (see `mergeSchemas`), and nothing is required but `action`. Which fields
 * each action takes is in the description; the action's own zod schema checks the call and refuses an
 * unknown field by name, so the descriptor does not spend `additionalProperties: false` on it.
 */
function mergedSchema(tool: ToolDef, ops: Operation[], schemas: JsonSchema[]): McpToolDescriptor['inputSchema'] {
  const action: JsonSchema = { type: 'string', enum: ops.map((op) => op.action) };
  const byDefault = tool.defaultAction !== undefined && ops.some((op) => op.action === tool.defaultAction);
  if (byDefault) action.default = tool.defaultAction;
  const properties: Record<string, JsonSchema> = { action };
  for (const schema of schemas) {
    for (const [name, field] of Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>)) {
      properties[name] = properties[name] && name !== 'action' ? mergeSchemas(properties[name], field) : field;
    }
  }
  return { type: 'object', properties, ...(byDefault ? {} : { required: ['action'] }) };
}
