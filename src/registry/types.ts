import type { z } from 'zod';
import type { Logger } from '../log.js';
import type { ProgressUpdate, RawBody, SseSource } from '../lib/handler-results.js';
import type { Services } from '../domain/services.js';
import type { AgentActor, AgentStoreAccess } from '../domain/agents/agent-access.js';
import type { MachineRecord } from '../domain/chain/machine.js';
import type { Caller, Role } from '../domain/identity/caller.js';
import type { AppServices } from './app-ports.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** The tag the spec gives the sealed solvers' operations ("grouped under the tag 'Solvers'"). */
export const SOLVERS_TAG = 'Solvers';

export const TOOLSETS = ['platform', 'compute', 'machines', 'contracts', 'agents', 'economy', 'edge'] as const;
export type Toolset = (typeof TOOLSETS)[number];

/** `bearer`: a valid key is required (401 otherwise). `public`: no credential is required by the route itself. */
export type AuthRule = 'bearer' | 'public';

/** What a handler receives besides its input. */
export interface ActionContext {
  caller: Caller;
  requestId: string;
  services: Services;
  /** Operations that run other operations (`core_http`, the self-check); they sit above the pipeline, not in the domain. */
  app: AppServices;
  log: Logger;
  /** Aborted when the client cancels (MCP) or disconnects (HTTP). */
  signal: AbortSignal;
  /** Reports progress when the MCP client asked for it; a no-op otherwise. */
  progress: (update: ProgressUpdate) => void;
  /** Address of the client, when the transport knows it (HTTP); for per-client rate limits. */
  clientIp?: string;
  /** Adds a response header; only transports that have headers (REST) provide it, e.g. for a session cookie. */
  setHeader?: (name: string, value: string) => void;
  /** Who acts for the agent, set by the pipeline for an operation declaring `agentStore`. */
  agent?: AgentActor;
  /** Reads a request cookie; only transports that have headers (REST) provide it, e.g. for the SSO binding. */
  cookie?: (name: string) => string | undefined;
  /** The machine the route's role check read (the input named by `guards`); set for every route declaring `role`. */
  machine?: MachineRecord;
  /** The caller's role on `machine`, at least the route's `role`. */
  role?: Role;
  /**
   * Re-checks, now, what the pipeline checked before the handler ran: the credential is still live
   * (not expired, a machine-bound key not revoked), the route's role, the agent-store access (a
   * delegation still in force). Throws the refusal (403 for a credential that lapsed). Work that waits
   * (a queued sandbox run) calls it when it starts; the pipeline calls it again before it delivers the
   * answer of an operation declaring `waits`.
   */
  stillAllowed(): Promise<void>;
}

/**
 * What the handler of a route declaring `role` receives: the pipeline has read the machine named by its
 * `guards` input and checked the caller's role on it, and hands both on instead of the handler reading
 * them again.
 */
export interface GuardedContext extends ActionContext {
  machine: MachineRecord;
  role: Role;
}

/**
 * What an operation answers, one kind per action:
 * - `json` (the default): a JSON value, checked against the action's `output`, `Secret` fields removed.
 * - `stream`: server-sent events; the handler returns an `SseSource`. With `feed: 'machine'` (the default)
 *   the pipeline wraps it so it delivers only while the caller still holds the right it was opened with
 *   (the route's role, else read access to the machine named by `slug`; see `delivery-guard.ts`), and
 *   the registry refuses such a stream without a slug input. `feed: 'public'` is a stream that names no
 *   machine and filters each event itself to public data (the aggregate feed): no per-machine right to re-check.
 * - `raw`: a body that is not JSON (an SVG badge, Prometheus metrics), of `contentType`; the handler returns a `RawBody`.
 * - `relay`: another operation's answer, already checked against that operation's own output schema
 *   (`core_http`): the pipeline does not check it a second time against this looser one.
 */
export type ResponseKind = { kind: 'json' } | { kind: 'stream'; feed?: 'machine' | 'public' } | { kind: 'raw'; contentType: string } | { kind: 'relay' };

/** The response kind of an action, JSON when it declares none. */
export function responseOf(def: Pick<ActionDef, 'response'>): ResponseKind {
  return def.response ?? JSON_RESPONSE;
}

const JSON_RESPONSE: ResponseKind = { kind: 'json' };

/**
 * One operation of the service. A tool's actions are its operations; REST routes, MCP tools,
 * OpenAPI, `/api/endpoints` and the catalog are all derived from these declarations.
 */
export interface ActionDef<I extends z.ZodObject = z.ZodObject, O extends z.ZodType = z.ZodType> {
  /** Operation id, `area.verbNoun`, unique across the registry. */
  id: string;
  /** Name of the action inside its tool (the `action` enum value); derived from `id` when absent. */
  action?: string;
  method: HttpMethod;
  /** Path exactly as the spec writes it, with `{param}` placeholders. */
  path: string;
  /** The spec's auth column; what the surfaces state is `effectiveAuth` (see `auth-rule.ts`). */
  auth: AuthRule;
  /**
   * The spec lists the route as public, but the operation acts for a known caller (creates something
   * the caller owns, signs the caller in): without a key the pipeline answers 401 before the input.
   */
  callerRequired?: boolean;
  /** Minimum role on the machine named by the `guards` input; the handler gets that machine as `ctx.machine`. */
  role?: Role;
  /**
   * The operation evaluates conditions the caller supplies or triggers: the pipeline holds free callers
   * to their condition allowance and charges the work to them. `simulation` (simulate, dry-run: work
   * with no result stored) counts against the concurrency limit and the work per window; `transition`
   * only against the work per window (a key driving its contracts may run many at once).
   */
  evaluatesConditions?: 'simulation' | 'transition';
  /**
   * The input that names the machine `role` is checked on (`slug`, `motherSlug`). Required with `role`;
   * the registry refuses a name its input schema does not declare.
   */
  guards?: string;
  /**
   * The operation uses an agent's own store (the agent named by the `uid` input, the caller when
   * absent). The pipeline lets through only the agent itself or, for `read`/`write`, the owner of the
   * `slug` machine holding the agent's delegation, and hands the result to the handler as `ctx.agent`.
   * Required of every path under `/api/agent/`.
   */
  agentStore?: AgentStoreAccess;
  /**
   * The operation creates access that outlives the call (an API key, a machine or publish key, a share
   * token, a role for someone else, a delegation, a sign-in round trip), named as the subject of a
   * sentence: "Minting an API key". The pipeline refuses it to an unproven session (`assertProven`);
   * `test/unit/registry/lasting-access.test.ts` fails when an operation that mints a credential or grants
   * a role does not declare it.
   */
  lastingAccess?: string;
  /** The service area that implements it (a catalogue tag and OpenAPI's `x-area`). */
  area: string;
  /** One sentence, written for an agent. */
  summary: string;
  /** Path params, query and body as one object of JSON values. */
  input: I;
  /**
   * Other names accepted for input fields, alias -> declared field: the spec's spelling where it differs
   * from ours (`windowTicks` for `window_ticks`). Every transport accepts them; schemas list the declared name.
   */
  aliases?: Readonly<Record<string, string>>;
  output: O;
  /** What the operation answers besides a JSON value checked against `output`; JSON when absent. */
  response?: ResponseKind;
  /**
   * The handler may wait (for a sandbox slot) or run long before it answers: it re-checks the
   * caller's right when the work starts (`ctx.stillAllowed`), and the pipeline re-checks it before it
   * delivers the answer, so a right revoked during the wait binds the work.
   */
  waits?: boolean;
  /** The operation deletes or irreversibly replaces something. */
  destructive?: boolean;
  /** Repeating the call with the same input has no further effect. */
  idempotent?: boolean;
  /** The operation reaches beyond this server (an upstream, a peer). */
  openWorld?: boolean;
  /**
   * Extra tags beside the toolset, area and tool ones: e.g. `human-session` (community operator
   * promotion), `Solvers` (the spec groups the sealed solvers under that tag).
   */
  tags?: string[];
  /**
   * Largest request body the HTTP transport reads for this operation, in bytes (default: the node's
   * 1 MiB). For operations whose declared inputs are larger, e.g. a solver's 400×400 matrix.
   */
  maxBodyBytes?: number;
  handler: (input: z.infer<I>, ctx: ActionContext) => Promise<unknown>;
}

export interface ToolDef {
  /** `core_` + snake_case. */
  name: string;
  toolset: Toolset;
  title: string;
  /** What the tool is for, written for an agent choosing among tools. */
  description: string;
  actions: ActionDef[];
  /** The action a call that names none runs (e.g. the catalogue's map); absent: `action` is required. */
  defaultAction?: string;
}

/** What `defineAction` takes besides the handler: `guards` must name an input field, and comes with `role`. */
type ActionSpec<I extends z.ZodObject, O extends z.ZodType, R extends Role | undefined> = Omit<ActionDef<I, O>, 'handler' | 'role' | 'guards'> & {
  role?: R;
} & ([R] extends [Role] ? { guards: keyof I['shape'] & string } : { guards?: undefined });

/**
 * Declares an action with its handler typed from its schemas; a route declaring `role` gets a handler
 * whose context carries the machine the role was checked on (`GuardedContext`).
 */
/**
 * An action as `defineAction` hands it on: an `ActionDef` that still carries its literal id and its
 * output schema, so tests (and any typed client) can read an operation's answer type by its id.
 */
export type TypedActionDef<Id extends string, O extends z.ZodType> = ActionDef & { readonly id: Id; readonly output: O };

export function defineAction<const Id extends string, I extends z.ZodObject, O extends z.ZodType, R extends Role | undefined = undefined>(
  def: ActionSpec<I, O, R> & {
    id: Id;
    handler: (input: z.infer<I>, ctx: [R] extends [Role] ? GuardedContext : ActionContext) => Promise<z.infer<O> | RawBody | SseSource>;
  },
): TypedActionDef<Id, O> {
  return def as unknown as TypedActionDef<Id, O>;
}

/** Declares a tool; its `actions` keep their own types (see `TypedActionDef`). */
export function defineTool<const A extends ActionDef[]>(def: Omit<ToolDef, 'actions'> & { actions: A }): ToolDef & { actions: A } {
  return def;
}

/** The content type a response kind is sent with over HTTP. */
export function contentTypeOf(response: ResponseKind): string {
  if (response.kind === 'stream') return 'text/event-stream';
  return response.kind === 'raw' ? response.contentType : 'application/json';
}
