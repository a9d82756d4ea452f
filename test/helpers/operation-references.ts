import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Registry, RouteMatch } from '../../src/registry/registry.js';
import { sourceFiles } from './source-files.js';

const METHOD = '(GET|POST|PUT|PATCH|DELETE)';
/** `call('GET', '/api/…'` and `request('POST', \`/api/…\`` of the test clients. */
const REST_CALL = new RegExp(`['"]${METHOD}['"]\\s*,\\s*[\`'"]((?:/api/|\\$\\{)[^\`'"]*)[\`'"]`, 'g');
/** `'GET /api/…'`: a route written as the catalogue writes it, in a table of cases. */
const ROUTE_LITERAL = new RegExp(`[\`'"]${METHOD} (/api/[^\`'"\\s]*)[\`'"]`, 'g');
/** `fetch(\`${url}/api/…\`, { method: 'POST' … })`: the method, when given, follows the address. */
const FETCH = /fetch\(`\$\{[^}]+\}(\/api\/[^`]*)`(?:\s*,\s*\{[^}]{0,200}?method:\s*['"](GET|POST|PUT|PATCH|DELETE)['"])?/g;
/**
 * An MCP tool call, `name: 'core_x'` of a `tools/call` or `'core_x', { … }` of a helper taking the tool
 * and its arguments, with the `action` that follows it within the same arguments.
 */
const TOOL_CALL = /(?:name:\s*['"](core_[a-z0-9_]+)['"]|['"](core_[a-z0-9_]+)['"],\s*(?=\{))(?:[^}]{0,120}?action:\s*['"]([a-z0-9_]+)['"])?/g;
/** `const base = \`/api/chain/${slug}/contracts\``, `base: '/api/…'` or `contractBase = () => \`/api/…\``: a name for a path prefix. */
const PREFIX_NAME = /\b([A-Za-z_]\w*)\s*[=:]\s*(?:\(\)\s*=>\s*)?[`'"](\/api\/[^`'"]*)[`'"]/g;
/** An interpolation at the start of a path naming a prefix: `${base}`, `${t.base}`, `${contractBase()}`. */
const LEADING_NAME = /^\$\{(?:[A-Za-z_]\w*\.)*([A-Za-z_]\w*)(?:\(\))?\}/;
/** Any string literal shaped like an operation id (`'chain.getState'`): a `callOp`, a `byId.get`, a table of ids. */
const ID_LITERAL = /['"`]([a-z][A-Za-z]*\.[a-z][A-Za-z0-9]*)['"`]/g;

/** A path as a test writes it, made concrete enough for the router: interpolations and `{params}` become a segment, the query goes. */
function routable(address: string): string {
  return address
    .replace(/\$\{[^}]*\}/g, 'x')
    .replace(/\{[^}]*\}/g, 'x')
    .replace(/[?#].*$/, '');
}

/** A path the router cannot parse (a stray `%` of an interpolation) names no operation. */
function safeMatch(registry: Registry, method: string, routePath: string): RouteMatch | undefined {
  try {
    return registry.match(method, routePath);
  } catch {
    return undefined;
  }
}

/** Matches a route's declared path ending in `tail`, where an `x` segment stands for any one segment. */
function suffixPattern(tail: string): RegExp {
  const segments = tail.split('/').map((segment) => (segment === 'x' ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
  return new RegExp(`${segments.join('/')}$`);
}

/**
 * The operations a test source reaches, each resolved through the registry: REST calls by the router
 * (`/api/chain/x/state` is `chain.getState`), MCP tool calls by tool and action, ids by `byId`. A path
 * or id the registry does not know names nothing.
 */
export function operationsReachedIn(registry: Registry, source: string): Set<string> {
  const reached = new Set<string>();
  const prefixes = new Map<string, string>();
  for (const [, name, prefix] of source.matchAll(PREFIX_NAME)) if (!prefixes.has(name!)) prefixes.set(name!, prefix!);
  const route = (method: string, written: string) => {
    const named = LEADING_NAME.exec(written);
    const prefix = named && prefixes.get(named[1]!);
    const address = prefix ? prefix + written.slice(named[0].length) : written;
    if (address.startsWith('/api/')) {
      const match = safeMatch(registry, method, routable(address));
      if (match?.kind === 'found') reached.add(match.op.id);
      return;
    }
    // `${t.base}/${id}/rollback` with no `base` in sight: the route is the one operation whose path ends so.
    const tail = routable(address.replace(/^\$\{[^}]*\}/, ''));
    if (tail.length < 2) return;
    const endsSo = registry.operations.filter((op) => op.method === method && suffixPattern(tail).test(op.path));
    if (endsSo.length === 1) reached.add(endsSo[0]!.id);
  };
  for (const [, method, address] of source.matchAll(REST_CALL)) route(method!, address!);
  for (const [, method, address] of source.matchAll(ROUTE_LITERAL)) route(method!, address!);
  for (const [, address, method] of source.matchAll(FETCH)) route(method ?? 'GET', address!);
  for (const [, named, passed, action] of source.matchAll(TOOL_CALL)) {
    const tool = registry.toolByName.get((named ?? passed)!);
    if (!tool) continue;
    const actions = registry.actionsOf(tool);
    const chosen = action ?? tool.defaultAction ?? (actions.size === 1 ? [...actions.keys()][0] : undefined);
    const op = chosen === undefined ? undefined : actions.get(chosen);
    if (op) reached.add(op.id);
  }
  for (const [, id] of source.matchAll(ID_LITERAL)) if (registry.byId.has(id!)) reached.add(id!);
  return reached;
}

const TEST_ROOT = path.resolve(fileURLToPath(new URL('..', import.meta.url)));

/**
 * Files that name operations without exercising them: the registry's declaration tests (tables of
 * routes and ids), the catalogue test, and the output copies of `callOp`.
 */
const DECLARING = [path.join('unit', 'registry') + path.sep, 'catalog.test.ts', path.join('helpers', 'operation-outputs.ts')];

/** The text of every TypeScript file under test/ that exercises operations, with its path relative to test/. */
export function exercisingTestSources(): Array<{ file: string; text: string }> {
  return sourceFiles(TEST_ROOT)
    .map((full) => ({ full, file: path.relative(TEST_ROOT, full) }))
    .filter(({ file }) => !DECLARING.some((prefix) => file.startsWith(prefix)))
    .map(({ full, file }) => ({ file, text: readFileSync(full, 'utf8') }));
}
