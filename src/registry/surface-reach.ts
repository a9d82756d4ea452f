import { CoreError } from '../errors.js';
import type { SurfaceFilter } from './mcp-tools.js';
import type { Operation } from './registry.js';

/** The toolset whose tools every narrowed surface keeps (the catalogue, the relay, the account). */
const ALWAYS_KEPT = 'platform';

/**
 * Why an operation is outside the surface the controls leave (`CORE_TOOLSETS`, `CORE_READ_ONLY`), or
 * undefined when it is inside. This is the one rule for what the tool surface can reach, not only what
 * it lists: the relay (`core_http`) refuses with it and the catalogue (`core_api_catalog`, the MCP
 * catalogue resource) leaves out what it refuses. FORBIDDEN, not NOT_FOUND: the route exists and the
 * refusal reveals nothing about any data; the message says which setting would allow it.
 */
export function reachRefusal(op: Operation, filter: SurfaceFilter): CoreError | undefined {
  const hidden = hiddenBy(op, filter);
  const toolset = op.tool.toolset;
  if (hidden === 'toolset' && filter.toolsets) {
    const wider = [...filter.toolsets, toolset].join(',');
    return new CoreError(
      'FORBIDDEN',
      `${op.method} ${op.path} (${op.id}, tool ${op.tool.name}) is outside this server's tool surface: it belongs to toolset "${toolset}" and CORE_TOOLSETS=${filter.toolsets.join(',')}; start the server with CORE_TOOLSETS=${wider} to reach it`,
      { toolset, operation: op.id },
    );
  }
  if (hidden === 'read-only') {
    return new CoreError(
      'FORBIDDEN',
      `${op.method} ${op.path} (${op.id}) writes, and this server runs read-only (CORE_READ_ONLY); only GET operations are reachable; start it without CORE_READ_ONLY to reach it`,
      { read_only: true, operation: op.id },
    );
  }
  return undefined;
}

/** Whether the surface controls leave an operation reachable (see `reachRefusal`). */
export function reachable(op: Operation, filter: SurfaceFilter): boolean {
  return hiddenBy(op, filter) === undefined;
}

/** Which control hides an operation: its toolset is not enabled, or it writes on a read-only server. */
function hiddenBy(op: Operation, filter: SurfaceFilter): 'toolset' | 'read-only' | undefined {
  if (filter.toolsets && op.tool.toolset !== ALWAYS_KEPT && !filter.toolsets.includes(op.tool.toolset)) return 'toolset';
  if (filter.readOnly && op.method !== 'GET') return 'read-only';
  return undefined;
}
