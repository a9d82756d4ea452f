import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { CoreError, errors, publicError } from '../../errors.js';
import type { Credentials } from '../../pipeline/authenticate.js';
import { collectEvents, isSseSource } from '../../pipeline/collect-events.js';
import type { InvokeOptions, Pipeline } from '../../pipeline/invoke.js';
import { visibleActions, visibleTools, type SurfaceFilter } from '../../registry/mcp-tools.js';
import { liftShareToken, SHARE_TOKEN_ARG, takesShareToken } from '../../registry/share-reads.js';
import type { Operation, Registry } from '../../registry/registry.js';
import type { ToolDef } from '../../registry/types.js';
import { rawBodyAsJson, type RawBody, type SseSource } from '../../lib/handler-results.js';
import type { McpContent } from '../../domain/platform/mcp-content.js';
import { nestsDeeperThan, tooDeepMessage } from '../../lib/json-depth.js';
import { nearestName } from '../../lib/did-you-mean.js';
import { restWording, toolWording, type Wording } from '../../registry/surface-wording.js';

export interface ToolSurface {
  registry: Registry;
  pipeline: Pipeline;
  filter: SurfaceFilter;
  /** Resources and prompts offered next to the tools. */
  content: McpContent;
}

/** Thrown for a tool name the surface does not serve; transports turn it into JSON-RPC -32602. */
export class UnknownToolError extends Error {
  constructor(readonly tool: string) {
    super(`Unknown tool: ${tool}`);
  }
}

/** Runs one `tools/call` through the pipeline; every failure after the tool is found is an `isError` result. */
export async function callTool(
  surface: ToolSurface,
  name: string,
  args: Record<string, unknown> | undefined,
  creds: Credentials,
  opts: InvokeOptions,
): Promise<CallToolResult> {
  const tool = surface.registry.toolByName.get(name);
  const wording = toolWording(surface.registry);
  if (!tool || !visibleSet(surface).has(tool)) throw new UnknownToolError(name);
  // Over HTTP the body reader has refused such a body already; stdio arguments arrive only here.
  if (nestsDeeperThan(args)) {
    const message = tooDeepMessage('arguments');
    return errorResult(errors.validation(message, { issues: [{ path: 'arguments', message, code: 'too_deep' }] }), opts.requestId, wording);
  }
  const actions = surface.registry.actionsOf(tool);
  let op: Operation | undefined;
  // The pipeline only reads the input (its schema parse makes the copy the handler gets).
  let input: Record<string, unknown> = args ?? {};
  if (actions.size === 1) {
    op = actions.values().next().value;
  } else {
    const { action = tool.defaultAction, ...rest } = input;
    op = typeof action === 'string' ? actions.get(action) : undefined;
    if (!op) {
      return errorResult(unknownAction(tool, action, [...actions.keys()]), opts.requestId, wording);
    }
    input = rest;
  }
  // A share token arrives as an argument (a tool call has no header on stdio): it joins the credentials.
  if (Object.hasOwn(input, SHARE_TOKEN_ARG) && takesShareToken(visibleActions(surface.registry, tool, surface.filter))) {
    const lifted = liftShareToken(input);
    if (lifted instanceof CoreError) return errorResult(lifted, opts.requestId, wording);
    if (lifted) ({ input, creds, opts } = withShareToken(lifted, creds, opts));
  }
  const result = await surface.pipeline.invoke(op!, input, creds, opts);
  if (result.warning !== undefined) {
    const answer = result.ok ? await successResult(op!, result.value, input, opts.signal) : errorResult(result.error, result.requestId, wording);
    return withNote(answer, wording(result.warning));
  }
  if (!result.ok) return errorResult(result.error, result.requestId, wording);
  return successResult(op!, result.value, input, opts.signal);
}

/** An action the tool does not have: the list, and the nearest name when one is close (`apend_event`). */
function unknownAction(tool: ToolDef, action: unknown, names: string[]): CoreError {
  const list = names.join(', ');
  const meant = typeof action === 'string' ? nearestName(action, names) : undefined;
  const given = action === undefined ? `${tool.name} needs an "action"` : `${tool.name} has no action ${JSON.stringify(action)}`;
  const hint = meant === undefined ? '.' : `; did you mean "${meant}"?`;
  const issue = { path: 'action', message: `expected one of ${list}`, code: 'invalid_value', ...(meant === undefined ? {} : { did_you_mean: meant }) };
  return errors.validation(`${given}${hint} It must be one of: ${list}`, { issues: [issue] });
}

/** The call with the share token in its credentials, and in the caller already admitted (HTTP) when there is one. */
function withShareToken(
  lifted: { token: string; rest: Record<string, unknown> },
  creds: Credentials,
  opts: InvokeOptions,
): { input: Record<string, unknown>; creds: Credentials; opts: InvokeOptions } {
  const admission = opts.admission && 'caller' in opts.admission ? { caller: { ...opts.admission.caller, shareToken: lifted.token } } : opts.admission;
  return { input: lifted.rest, creds: { ...creds, shareToken: lifted.token }, opts: admission ? { ...opts, admission } : opts };
}

/**
 * The answer with a warning the model should read (MCP has no response headers): a second text item,
 * and `_meta["core/warning"]` for clients that act on it.
 */
function withNote(answer: CallToolResult, warning: string): CallToolResult {
  return {
    ...answer,
    content: [...answer.content, { type: 'text', text: `Warning: ${warning}` }],
    _meta: { ...answer._meta, 'core/warning': warning },
  };
}

/** The tools a surface serves, computed once per surface: its registry and filter never change. */
const visibleBySurface = new WeakMap<ToolSurface, ReadonlySet<ToolDef>>();
function visibleSet(surface: ToolSurface): ReadonlySet<ToolDef> {
  let set = visibleBySurface.get(surface);
  if (!set) visibleBySurface.set(surface, (set = new Set(visibleTools(surface.registry, surface.filter))));
  return set;
}

/** Synchronous but for streams: an async function here would cost every call a promise and a hop. */
function successResult(
  op: Operation,
  value: unknown,
  input: Record<string, unknown>,
  signalOf?: AbortSignal | (() => AbortSignal),
): CallToolResult | Promise<CallToolResult> {
  if (op.response.kind === 'stream' && isSseSource(value)) return streamResult(value, input, signalOf);
  if (op.response.kind === 'raw') {
    const raw = rawBodyAsJson(value as RawBody);
    return { content: [{ type: 'text', text: raw.body }], structuredContent: raw };
  }
  return jsonResult(value);
}

async function streamResult(source: SseSource, input: Record<string, unknown>, signalOf?: AbortSignal | (() => AbortSignal)): Promise<CallToolResult> {
  // Made only here: most calls never need one, and each costs an AbortController and a listener.
  const signal = typeof signalOf === 'function' ? signalOf() : signalOf;
  const collected = await collectEvents(source, {
    maxEvents: typeof input.max_events === 'number' ? input.max_events : 20,
    maxMs: typeof input.max_ms === 'number' ? input.max_ms : 5000,
    ...(typeof input.last_event_id === 'string' ? { lastEventId: input.last_event_id } : {}),
    ...(signal ? { signal } : {}),
  });
  return jsonResult({ ok: true, ...collected });
}

export function jsonResult(value: unknown): CallToolResult {
  const text = JSON.stringify(value);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { content: [{ type: 'text', text }], structuredContent: { value } };
  return new StructuredResult(value as Record<string, unknown>, text);
}

/**
 * A tool answer whose text is the JSON of its structured copy, remembered so `rpcResponseJson` writes
 * that text as the structured copy instead of serializing the value a second time (the second
 * serialization was the largest single cost of a cheap `tools/call` over HTTP). A class with private
 * fields rather than a WeakMap beside a plain object: thousands of WeakMap entries a second cost more in
 * the garbage collector than the serialization saved. To everything else it is a plain `CallToolResult`.
 */
class StructuredResult {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  structuredContent: Record<string, unknown>;
  readonly #text: string;
  readonly #value: Record<string, unknown>;

  constructor(value: Record<string, unknown>, text: string) {
    this.content = [{ type: 'text', text }];
    this.structuredContent = value;
    this.#text = text;
    this.#value = value;
  }

  /**
   * The value's JSON, while `content` and `structuredContent` are still exactly as made and come first
   * (fields added after them, such as the modern era's `resultType` and `_meta`, are serialized apart).
   */
  static jsonOf(result: unknown): string | undefined {
    if (!(result instanceof StructuredResult)) return undefined;
    const item = result.content[0];
    const keys = Object.keys(result);
    const untouched =
      keys[0] === 'content' &&
      keys[1] === 'structuredContent' &&
      !('toJSON' in result) &&
      result.structuredContent === result.#value &&
      result.content.length === 1 &&
      item !== undefined &&
      Object.keys(item).length === 2 &&
      item.type === 'text' &&
      item.text === result.#text;
    return untouched ? result.#text : undefined;
  }
}

/**
 * `JSON.stringify` of a JSON-RPC response, byte for byte; for a `{ jsonrpc, id, result }` whose result is
 * an untouched `jsonResult`, without serializing the value twice. (A value changed after `jsonResult`
 * would keep its old text; nothing does that: results go straight from the pipeline to the transport.)
 */
export function rpcResponseJson(message: { jsonrpc?: unknown; id?: unknown; result?: unknown }): string {
  const text = StructuredResult.jsonOf(message.result);
  if (text === undefined || !plainResponse(message)) return JSON.stringify(message);
  const result = message.result as Record<string, unknown>;
  const keys = Object.keys(result);
  let rest = '';
  for (let i = 2; i < keys.length; i++) {
    const value = jsonOfMember(result[keys[i]!]);
    if (value !== undefined) rest += `,${JSON.stringify(keys[i])}:${value}`;
  }
  return `{"jsonrpc":"2.0","id":${JSON.stringify(message.id)},"result":{"content":[{"type":"text","text":${JSON.stringify(text)}}],"structuredContent":${text}${rest}}}`;
}

/** JSON of frozen objects (the modern era's `_meta`, one per server), written once. */
const frozenJson = new WeakMap<object, string>();
function jsonOfMember(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || !Object.isFrozen(value)) return JSON.stringify(value);
  let text = frozenJson.get(value);
  if (text === undefined) frozenJson.set(value, (text = JSON.stringify(value)));
  return text;
}

/** Exactly `{ jsonrpc: '2.0', id, result }`, in that order, with a string or number id. */
function plainResponse(message: { jsonrpc?: unknown; id?: unknown }): boolean {
  const keys = Object.keys(message);
  return (
    keys.length === 3 &&
    keys[0] === 'jsonrpc' &&
    keys[1] === 'id' &&
    keys[2] === 'result' &&
    message.jsonrpc === '2.0' &&
    (typeof message.id === 'string' || typeof message.id === 'number')
  );
}

/** An `isError` result; `wording` renders the message for a tool surface (REST paths become tool calls). */
export function errorResult(error: CoreError, requestId?: string, wording: Wording = restWording): CallToolResult {
  const body = publicError(error, requestId);
  body.message = wording(body.message);
  return {
    isError: true,
    content: [{ type: 'text', text: `${body.code}: ${body.message}` }],
    structuredContent: { error: body },
  };
}
