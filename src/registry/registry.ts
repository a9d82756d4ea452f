import FindMyWay from 'find-my-way';
import type { z } from 'zod';
import { responseOf, type ActionDef, type HttpMethod, type ResponseKind, type ToolDef } from './types.js';
import { propertyTypes, toJsonSchema, type JsonSchema } from './json-schema.js';
import { secretStripper, type Stripper } from './secret-fields.js';

/** An action of a tool, resolved and precompiled for dispatch. */
export interface Operation {
  id: string;
  tool: ToolDef;
  /** Name of the action inside its tool. */
  action: string;
  def: ActionDef;
  method: HttpMethod;
  path: string;
  pathParams: string[];
  /** The input schema with unknown keys refused: a typo gets a clear error instead of being ignored. */
  strictInput: z.ZodObject;
  inputSchema: JsonSchema;
  outputSchema: JsonSchema;
  /** JSON type of each top-level input field, for coercing query strings. */
  fieldTypes: Record<string, string>;
  /** What it answers: JSON (the default), a stream, a raw body, or another operation's answer. */
  response: ResponseKind;
  /** Removes the output's `Secret` fields (the output rule every read path goes through); undefined when it has none. */
  stripSecrets: Stripper | undefined;
}

/** Routes served by a transport rather than by a tool action (listed so the catalog is complete). */
export interface TransportRoute {
  method: HttpMethod;
  path: string;
  auth: string;
  summary: string;
}

export const TRANSPORT_ROUTES: readonly TransportRoute[] = [
  {
    method: 'POST',
    path: '/api/mcp',
    auth: 'optional bearer (per tool)',
    summary: 'MCP over Streamable HTTP (JSON-RPC 2.0): initialize, ping, tools/list and tools/call for the 57 tools.',
  },
];

export type RouteMatch =
  { kind: 'found'; op: Operation; params: Record<string, string> } | { kind: 'method-not-allowed'; allowed: HttpMethod[] } | { kind: 'not-found' };

export interface Registry {
  tools: ToolDef[];
  operations: Operation[];
  byId: ReadonlyMap<string, Operation>;
  toolByName: ReadonlyMap<string, ToolDef>;
  /** The operations of a tool, keyed by action name. */
  actionsOf(tool: ToolDef): ReadonlyMap<string, Operation>;
  match(method: string, path: string): RouteMatch;
}

const METHODS: HttpMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** Derives a tool-local action name from an operation id: `chain.appendEvent` -> `append_event`. */
export function actionNameOf(def: ActionDef): string {
  if (def.action) return def.action;
  const verb = def.id.slice(def.id.indexOf('.') + 1);
  return verb
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[.-]/g, '_')
    .toLowerCase();
}

export function paramsOf(path: string): string[] {
  return [...path.matchAll(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g)].map((m) => m[1]!);
}

/**
 * An operation whose derived schemas are computed on first use: converting ~180 zod schemas to JSON
 * Schema at start would delay the first answer of every process, and most processes need few of them.
 */
function lazyOperation(def: ActionDef, tool: ToolDef, action: string, pathParams: string[]): Operation {
  let strictInput: z.ZodObject | undefined;
  let inputSchema: JsonSchema | undefined;
  let outputSchema: JsonSchema | undefined;
  let fieldTypes: Record<string, string> | undefined;
  let stripSecrets: { fn: Stripper | undefined } | undefined;
  return {
    id: def.id,
    tool,
    action,
    def,
    method: def.method,
    path: def.path,
    pathParams,
    response: responseOf(def),
    get strictInput() {
      return (strictInput ??= def.input.strict());
    },
    get inputSchema() {
      return (inputSchema ??= toJsonSchema(def.input, 'input'));
    },
    get outputSchema() {
      return (outputSchema ??= toJsonSchema(def.output, 'output'));
    },
    get fieldTypes() {
      if (!fieldTypes) {
        fieldTypes = propertyTypes(this.inputSchema);
        // A query-string alias is coerced as the field it names.
        for (const [alias, name] of Object.entries(def.aliases ?? {})) if (fieldTypes[name]) fieldTypes[alias] = fieldTypes[name];
      }
      return fieldTypes;
    },
    get stripSecrets() {
      return (stripSecrets ??= { fn: secretStripper(def.output) }).fn;
    },
  };
}

/** Builds the registry and its route table; throws on any declaration error (checked at start and in tests). */
export function buildRegistry(tools: ToolDef[]): Registry {
  const router = FindMyWay({ ignoreTrailingSlash: true, caseSensitive: true, maxParamLength: 512 });
  const operations: Operation[] = [];
  const byId = new Map<string, Operation>();
  const toolByName = new Map<string, ToolDef>();
  const actionsByTool = new Map<ToolDef, Map<string, Operation>>();
  const routeKeys = new Set<string>();

  for (const tool of tools) {
    if (toolByName.has(tool.name)) throw new Error(`duplicate tool ${tool.name}`);
    toolByName.set(tool.name, tool);
    const actions = new Map<string, Operation>();
    actionsByTool.set(tool, actions);
    for (const def of tool.actions) {
      const action = actionNameOf(def);
      if (actions.has(action)) throw new Error(`duplicate action ${action} in ${tool.name}`);
      if (byId.has(def.id)) throw new Error(`duplicate operation id ${def.id}`);
      const routeKey = `${def.method} ${def.path.replace(/\{[^}]+\}/g, '{}')}`;
      if (routeKeys.has(routeKey)) throw new Error(`duplicate route ${def.method} ${def.path}`);
      routeKeys.add(routeKey);
      const pathParams = paramsOf(def.path);
      for (const p of pathParams) {
        if (!(p in def.input.shape)) throw new Error(`${def.id}: path param {${p}} missing from input`);
      }
      for (const [alias, name] of Object.entries(def.aliases ?? {})) {
        if (!(name in def.input.shape)) throw new Error(`${def.id}: alias ${alias} names no input field ${name}`);
        if (alias in def.input.shape) throw new Error(`${def.id}: alias ${alias} is also a declared input field`);
      }
      // The pipeline checks a role on the machine the route says its `guards` input names, never a guess.
      if (def.role && def.guards === undefined) throw new Error(`${def.id}: declares role ${def.role} but not which input (guards) names the machine`);
      if (def.guards !== undefined && !def.role) throw new Error(`${def.id}: declares guards but no role to check`);
      if (def.guards !== undefined && !(def.guards in def.input.shape)) {
        throw new Error(`${def.id}: guards names ${def.guards}, which is not an input field`);
      }
      // An agent's store answers only to the agent or its delegate: no agent route may skip that check.
      if (def.path.startsWith('/api/agent/') && !def.agentStore) throw new Error(`${def.id}: a path under /api/agent/ must declare agentStore`);
      if (def.agentStore && !('uid' in def.input.shape)) throw new Error(`${def.id}: declares agentStore but has no uid input naming the agent`);
      // A stream re-checks its receiver's right on the machine it names at delivery: it must name one.
      const response = responseOf(def);
      if (response.kind === 'stream' && response.feed !== 'public' && !((def.guards ?? 'slug') in def.input.shape)) {
        throw new Error(`${def.id}: a stream needs a slug input (its right is re-checked at delivery), or feed: 'public' for a feed of public rows only`);
      }
      const op = lazyOperation(def, tool, action, pathParams);
      operations.push(op);
      byId.set(op.id, op);
      actions.set(action, op);
      router.on(def.method, def.path.replace(/\{([^}]+)\}/g, ':$1'), () => undefined, op);
    }
  }

  const find = (method: string, path: string) => router.find(method as HttpMethod, path);

  return {
    tools,
    operations,
    byId,
    toolByName,
    actionsOf: (tool) => actionsByTool.get(tool) ?? new Map(),
    match(method, path) {
      const hit = find(method, path);
      if (hit) return { kind: 'found', op: hit.store as Operation, params: hit.params as Record<string, string> };
      const allowed = METHODS.filter((m) => m !== method && find(m, path));
      return allowed.length > 0 ? { kind: 'method-not-allowed', allowed } : { kind: 'not-found' };
    },
  };
}
