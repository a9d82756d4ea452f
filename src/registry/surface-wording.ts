import type { Operation, Registry } from './registry.js';

/**
 * How an answer refers to an operation depends on the surface that asked: a REST caller reads
 * `GET /api/contracts/templates`, an MCP caller needs `core_contract_templates {"action": "list"}`,
 * which it can call as written. Messages are written once, in REST words (the domain knows no tools);
 * the MCP surface renders them through `toolWording` as they leave, so no message carries both and
 * none is patched on its own. A path that names no operation is left as it is.
 */
export type Wording = (text: string) => string;

/** REST answers say paths: the messages as written. */
export const restWording: Wording = (text) => text;

/** `METHOD /api/...`, up to a space, quote, bracket, `,` or `;` (a sentence's full stop is cut off below). */
const REST_REFERENCE = /\b(GET|POST|PUT|PATCH|DELETE) (\/api\/[^\s"'`()<>,;]*)/g;

/** The reference without a full stop that ends the sentence; `?q=...` keeps its dots. */
function referenceAsCall(registry: Registry, method: string, target: string): string | undefined {
  const stop = target.endsWith('.') && !target.endsWith('...') ? '.' : '';
  const call = toolCall(registry, method, stop ? target.slice(0, -1) : target);
  return call === undefined ? undefined : call + stop;
}

const wordings = new WeakMap<Registry, Wording>();

/** The tool surface's wording: every REST reference a route matches becomes that tool call. */
export function toolWording(registry: Registry): Wording {
  let wording = wordings.get(registry);
  if (!wording) {
    const words: Wording = (text) =>
      text.includes('/api/')
        ? text.replace(REST_REFERENCE, (whole, method: string, target: string) => referenceAsCall(registry, method, target) ?? whole)
        : text;
    wordings.set(registry, (wording = words));
  }
  return wording;
}

function toolCall(registry: Registry, method: string, target: string): string | undefined {
  const [path = '', query] = target.split('?', 2);
  const match = registry.match(method, path);
  if (match.kind !== 'found') return undefined;
  const args: Record<string, string> = {};
  if (match.op.tool.actions.length > 1) args.action = match.op.action;
  // A placeholder left in the message (`{slug}`) is the caller's to fill: not an argument value.
  for (const [name, value] of Object.entries(match.params)) if (!/^\{.*\}$/.test(value)) args[name] = value;
  for (const [name, value] of new URLSearchParams(query ?? '')) args[name] = value;
  const json = Object.entries(args)
    .map(([name, value]) => `${JSON.stringify(name)}: ${JSON.stringify(value)}`)
    .join(', ');
  return `${match.op.tool.name} {${json}}`;
}

/** The operation as the surface names it: its id on REST, its tool and action on a tool surface. */
export function operationName(op: Operation, surface: 'rest' | 'tool'): string {
  if (surface === 'rest') return op.id;
  return op.tool.actions.length > 1 ? `${op.tool.name} action "${op.action}"` : op.tool.name;
}
