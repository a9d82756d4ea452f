import { contentTypeOf } from './types.js';
import { effectiveAuth } from './auth-rule.js';
import type { Operation, Registry } from './registry.js';
import { TRANSPORT_ROUTES } from './registry.js';
import type { EndpointEntry, EndpointMap, EndpointQuery } from './description-shapes.js';
import type { SurfaceFilter } from './mcp-tools.js';
import { reachable } from './surface-reach.js';

export function entryOf(op: Operation, withSchema: boolean): EndpointEntry {
  const entry: EndpointEntry = {
    id: op.id,
    method: op.method,
    path: op.path,
    auth: effectiveAuth(op.def),
    role: op.def.role ?? null,
    summary: op.def.summary,
    tool: op.tool.name,
    action: op.action,
    toolset: op.tool.toolset,
    area: op.def.area,
    tags: tagsOf(op),
    stream: op.response.kind === 'stream',
    produces: contentTypeOf(op.response),
    // Every declared operation has its handler (the type requires one); the field stays for clients that read it.
    available: true,
  };
  if (withSchema) entry.input_schema = op.inputSchema;
  return entry;
}

export function tagsOf(op: Operation): string[] {
  return [...new Set([op.tool.toolset, op.def.area, op.tool.name, ...(op.def.tags ?? [])])];
}

/** Every route of the node the surface controls leave (all without `filter`): tool operations, then the transport routes. */
export function allEndpoints(registry: Registry, withSchema = false, filter: SurfaceFilter = {}): EndpointEntry[] {
  const ops = filter.toolsets || filter.readOnly ? registry.operations.filter((op) => reachable(op, filter)) : registry.operations;
  const entries = ops.map((op) => entryOf(op, withSchema));
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
export function searchEndpoints(registry: Registry, query: EndpointQuery, filter: SurfaceFilter = {}): EndpointEntry[] {
  const words = (query.q ?? '').toLowerCase().split(/\s+/).filter(Boolean);
  const method = query.method?.toUpperCase();
  const tag = query.tag?.toLowerCase();
  return allEndpoints(registry, query.include_schemas === true, filter).filter((e) => {
    if (method && e.method !== method) return false;
    if (tag && !e.tags.some((t) => t.toLowerCase() === tag)) return false;
    if (query.path && !pathMatches(e.path, query.path)) return false;
    if (words.length === 0) return true;
    const text = `${e.id} ${e.method} ${e.path} ${e.summary} ${e.tool ?? ''} ${e.action ?? ''}`.toLowerCase();
    return words.every((w) => text.includes(w));
  });
}

/** A path query matches a template prefix (`/api/chain`) or a concrete path (`/api/chain/demo/event`). */
function pathMatches(template: string, query: string): boolean {
  if (template.startsWith(query)) return true;
  const pattern = new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/]+')}`);
  return pattern.test(query);
}

/** The map `core_api_catalog` gives when called with no arguments: toolsets, counts, and how to search. */
export function catalogMap(registry: Registry, version: string, filter: SurfaceFilter = {}): EndpointMap {
  const ops = registry.operations.filter((op) => reachable(op, filter));
  const tools = registry.tools.filter((t) => ops.some((op) => op.tool === t));
  const toolsets = [...new Set(tools.map((t) => t.toolset))].map((toolset) => {
    const members = tools.filter((t) => t.toolset === toolset);
    return { toolset, operations: ops.filter((op) => op.tool.toolset === toolset).length, tools: members.map((t) => t.name) };
  });
  return {
    ok: true,
    version,
    tools: tools.length,
    operations: ops.length,
    toolsets,
    how_to_search: [
      '{"action": "search", "q": "contract pause"}: operations whose id, path, summary or tool has every word',
      '{"action": "search", "tag": "machines"}: by toolset, area or tool name',
      '{"action": "search", "path": "/api/chain/my-machine/event", "include_schemas": true}: the operation behind a path, with its input schema',
      '{"action": "openapi"}: the OpenAPI 3.1 document',
    ],
  };
}
