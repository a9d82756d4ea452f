import { randomUUID } from 'node:crypto';
import { CoreError, errors, toCoreError } from '../errors.js';
import type { Logger } from '../log.js';
import type { Services } from '../domain/services.js';
import type { AppServices } from '../registry/app-ports.js';
import type { MachineRecord } from '../domain/chain/machine.js';
import type { Operation } from '../registry/registry.js';
import type { ActionContext } from '../registry/types.js';
import type { ProgressUpdate, SseSource } from '../lib/handler-results.js';
import { ANONYMOUS, type Caller, type Role } from '../domain/identity/caller.js';
import type { AgentActor } from '../domain/agents/agent-access.js';
import { isSseSource } from './collect-events.js';
import { authenticate, type Credentials } from './authenticate.js';
import { hasRole } from '../domain/identity/roles.js';
import { assertProven } from '../domain/identity/proof.js';
import type { RateLimiter } from './rate-limit.js';
import { applyAliases } from '../registry/aliases.js';
import { LIMITED_CALLERS, createConditionAllowance, type ConditionAllowance } from '../domain/contracts/condition-allowance.js';
import { isFreeCaller } from '../domain/identity/rate-tiers.js';
import { notReadyRefusal } from '../storage/store-refusal.js';
import type { StoreStatus } from '../storage/port.js';
import { validationError } from './validation-error.js';
import { operationName } from '../registry/surface-wording.js';
import { assertOAuthScope } from './oauth-scope.js';
import { readTokenAsKeyReason } from '../domain/chain/read-tokens.js';

export interface InvokeOptions {
  requestId?: string;
  /** The caller's abort signal, or a function that makes it on first use. */
  signal?: AbortSignal | (() => AbortSignal);
  progress?: (update: ProgressUpdate) => void;
  /** Client address, when the transport knows it. */
  clientIp?: string;
  /** Adds a response header, when the transport has headers. */
  setHeader?: (name: string, value: string) => void;
  /** Reads a request cookie, when the transport has headers. */
  cookie?: (name: string) => string | undefined;
  /** Report input errors before authentication errors (`core_http`). */
  validateFirst?: boolean;
  /** Which surface the call came through, for logs and metrics. */
  surface: 'rest' | 'mcp-stdio' | 'mcp-http' | 'core_http';
  /**
   * What `Pipeline.admit` found before the transport read the body: `invoke` then neither authenticates
   * again nor takes a second rate token.
   */
  admission?: Admission;
  /**
   * For `invokeAs` on someone's behalf: whose request budgets the call takes from, in order (a site's
   * write: the visitor, by key or else `clientIp`, then the site). Without it `invokeAs` takes none
   * (`core_http`: the outer call already did).
   */
  chargeTo?: readonly Caller[];
}

/**
 * `warning`: something the caller should know besides the answer (a bearer key this server does not
 * know, on a public operation answered anonymously); REST sends it as `X-Core-Key-Warning`, MCP as a note.
 */
export type InvokeResult =
  { ok: true; value: unknown; requestId: string; warning?: string } | { ok: false; error: CoreError; requestId: string; warning?: string };

/** The response header that carries `InvokeResult.warning` over HTTP. */
export const KEY_WARNING_HEADER = 'X-Core-Key-Warning';

/** Told to a caller answered anonymously because its bearer value is unknown here. */
export const MALFORMED_KEY_WARNING =
  'The Authorization header is not of the form "Bearer <key>"; answered as an anonymous caller. Send "Authorization: Bearer <key>" (or "X-API-Key: <key>"); mint a demo key with POST /api/demo-key/mint.';
export const UNKNOWN_KEY_WARNING =
  "The key sent is not known to this server's store; answered as an anonymous caller. Mint a new demo key with POST /api/demo-key/mint.";

/** A caller admitted before its body was read, or why its credential is refused (said again by `invoke`). */
export type Admission = { caller: Caller } | { refused: CoreError };

export interface Pipeline {
  /**
   * Authenticates the credentials and takes the caller's rate token, so a transport can do both before
   * it reads a body (whose size may then depend on the caller). Throws RATE_LIMITED; a credential that is
   * refused (a malformed header) is charged to the client address and returned as `refused`.
   */
  admit(creds: Credentials, clientIp: string | undefined): Promise<Admission>;
  /** authenticate -> parse -> authorize -> handle -> check output. Never throws. */
  invoke(op: Operation, rawInput: unknown, creds: Credentials, opts: InvokeOptions): Promise<InvokeResult>;
  /** The same pipeline for a caller already authenticated (used by `core_http`). */
  invokeAs(op: Operation, rawInput: unknown, caller: Caller, opts: InvokeOptions): Promise<InvokeResult>;
}

export interface PipelineDeps {
  services: Services;
  /** Handed to handlers as `ctx.app`. */
  app: AppServices;
  log: Logger;
  readOnly: boolean;
  /** The store's health without I/O (`Store.status`): writes are refused while it is not ready. */
  storeStatus: () => StoreStatus;
  /** Called once per finished call, for metrics. */
  observe?: (op: Operation, status: number, ms: number, surface: string) => void;
  /** Per-key request rate (RATE_LIMITED when exceeded); absent: unlimited. Not applied again inside `core_http`. */
  rateLimiter?: RateLimiter;
  /** Free callers' allowance of condition work, for operations that declare `evaluatesConditions`; absent: `LIMITED_CALLERS` on the services' clock. */
  conditionAllowance?: ConditionAllowance;
}

const NEVER_ABORTED = new AbortController().signal;

/** Whose allowance a call takes from: the key, else the identity, else the client address (as the rate limiter). */
const holderOf = (caller: Caller, clientIp: string | undefined): string =>
  caller.keyId ? `k:${caller.keyId}` : caller.uid ? `u:${caller.uid}` : `ip:${clientIp ?? 'local'}`;
const describeHolder = (caller: Caller): string => (caller.keyId ? 'this key' : caller.uid ? caller.uid : 'this address');

/**
 * An agent route's `{uid}` is the caller's own unless another is named: a tool surface (MCP, which has
 * no path) may leave it out, as the descriptor says (`mcp-tools.ts`). REST always has it from the path.
 */
function withOwnUid(op: Operation, input: unknown, caller: Caller): unknown {
  if (!op.def.agentStore || !op.pathParams.includes('uid') || caller.uid === null) return input;
  if (input === undefined) return { uid: caller.uid };
  if (typeof input !== 'object' || input === null || Array.isArray(input) || 'uid' in input) return input;
  return { ...input, uid: caller.uid };
}

export function createPipeline(deps: PipelineDeps): Pipeline {
  const { services, log } = deps;
  const conditionAllowance = deps.conditionAllowance ?? createConditionAllowance(LIMITED_CALLERS, () => services.clock.now());

  async function run(op: Operation, rawInput: unknown, caller: Caller, opts: InvokeOptions, requestId: string, machine?: Prefetched) {
    // core_http reports the target's schema errors before anything else, so the caller can fix them first.
    const aliased = op.def.aliases ? applyAliases(op, rawInput) : rawInput;
    if (aliased instanceof CoreError) throw aliased;
    const named = withOwnUid(op, aliased, caller);
    const parsed = op.strictInput.safeParse(named ?? {});
    if (opts.validateFirst && !parsed.success) throw validationError(op, parsed.error, named, operationName(op, opts.surface === 'rest' ? 'rest' : 'tool'));
    if ((op.def.auth === 'bearer' || op.def.callerRequired) && caller.uid === null) throw errors.unauthenticated(caller);
    assertOAuthScope(op, caller);
    if (!parsed.success) throw validationError(op, parsed.error, named, operationName(op, opts.surface === 'rest' ? 'rest' : 'tool'));
    const input = parsed.data as Record<string, unknown>;
    // The relay (`core_http`) runs its target through this same pipeline, which applies this check to it.
    if (deps.readOnly && op.method !== 'GET' && op.response.kind !== 'relay') {
      throw errors.forbidden('This server runs read-only (CORE_READ_ONLY); only GET operations are allowed');
    }
    // While the store reports itself unready (`Store.status`, no I/O), operations that write (every method
    // but GET, as read-only mode counts them) are refused 503 before the role check and the handler; reads
    // go on. A write admitted now has the store's reserve to finish in (lowdb's disk headroom), so it is
    // never cut in half by a refusal between two of its own writes.
    if (op.method !== 'GET' && op.response.kind !== 'relay') {
      const refused = notReadyRefusal(deps.storeStatus());
      if (refused) throw refused;
    }
    // The machine the role was checked on is the handler's: it is handed on, not read again.
    const guarded = op.def.role ? await authorize(op, input, caller, machine) : undefined;
    // Who may use an agent's store is decided here, once, for every route that declares one.
    const agent = op.def.agentStore ? await services.agents.access.authorize(caller, op.def.agentStore, input) : undefined;
    // One rule for durable credentials: access that outlives the session needs a proven identity.
    if (op.def.lastingAccess) assertProven(caller, op.def.lastingAccess);
    const ctx = new CallContext(caller, requestId, services, deps.app, log, op.id, opts, () => recheck(op, input, caller));
    if (agent) ctx.agent = agent;
    if (guarded) {
      ctx.machine = guarded.machine;
      ctx.role = guarded.role;
    }
    const allowance = op.def.evaluatesConditions && isFreeCaller(caller) ? conditionAllowance : undefined;
    const value = allowance
      ? await allowance.run(
          holderOf(caller, opts.clientIp),
          () => Promise.resolve(op.def.handler(input, ctx)),
          describeHolder(caller),
          op.def.evaluatesConditions === 'simulation',
        )
      : await op.def.handler(input, ctx);
    // Work that waited answers only a caller who still holds the right it was accepted with.
    if (op.def.waits) await recheck(op, input, caller);
    const response = op.response;
    if (response.kind === 'stream') return response.feed === 'public' || !isSseSource(value) ? value : guardStream(op, input, caller, value);
    if (response.kind === 'raw' || response.kind === 'relay') return value;
    // The output rule: a field declared `Secret` never leaves, whoever asks and through whichever surface.
    const checked = op.def.output.safeParse(op.stripSecrets ? op.stripSecrets(value) : value);
    if (!checked.success) {
      throw new CoreError('INTERNAL', `output of ${op.id} does not match its schema`, undefined, {
        cause: checked.error.issues,
      });
    }
    return checked.data;
  }

  /**
   * The checks of `run` made again, now: for work accepted, then made to wait (`ctx.stillAllowed`,
   * `waits`). Each reads afresh (no prefetched machine), so a revocation during the wait binds.
   */
  async function recheck(op: Operation, input: Record<string, unknown>, caller: Caller): Promise<void> {
    if (!(await services.identity.credentialLive(caller))) {
      throw errors.forbidden('The key or session this call was made with expired or was revoked while the work waited; use a current one');
    }
    if (op.def.role) await authorize(op, input, caller, undefined);
    if (op.def.agentStore) await services.agents.access.authorize(caller, op.def.agentStore, input);
  }

  /** A stream delivers only while the caller keeps the right checked above (see `delivery-guard.ts`). */
  function guardStream(op: Operation, input: Record<string, unknown>, caller: Caller, source: SseSource): SseSource {
    const slug = input[op.def.guards ?? 'slug'];
    if (typeof slug !== 'string') throw new Error(`${op.id} streams but has no machine input to re-check its receiver on`);
    return services.deliveryGuard.guard(source, { slug, caller, need: op.def.role ?? 'read' });
  }

  /** The role check: the machine named by the route's `guards` input and the caller's role on it, or the refusal. */
  async function authorize(
    op: Operation,
    input: Record<string, unknown>,
    caller: Caller,
    machine: Prefetched | undefined,
  ): Promise<{ machine: MachineRecord; role: Role }> {
    if (caller.uid === null) throw errors.unauthenticated(caller);
    const slug = input[op.def.guards!];
    if (typeof slug !== 'string') throw new Error(`${op.id} declares a role but its ${op.def.guards} input is not a string`);
    // NOT_FOUND when the machine does not exist or the caller may not read it: a private machine is never acknowledged.
    const found = await services.machines.readable(slug, caller, machine?.slug === slug ? machine.record : undefined);
    if (!hasRole(found.role, op.def.role!)) {
      throw errors.forbidden(`This operation needs the ${op.def.role} role on "${slug}"; you have ${found.role}`);
    }
    return { machine: found.machine, role: found.role as Role };
  }

  async function execute(
    op: Operation,
    caller: Caller | (() => Promise<Caller>),
    rawInput: unknown,
    opts: InvokeOptions,
    machine?: Prefetched,
  ): Promise<InvokeResult> {
    const requestId = opts.requestId ?? randomUUID();
    const started = performance.now();
    let warning: string | undefined;
    let who: Caller | undefined;
    try {
      who = typeof caller === 'function' ? await caller() : caller;
      if (who.unknownCredential) {
        warning = who.readTokenAsKey
          ? `Answered as an anonymous caller: ${readTokenAsKeyReason(who.readTokenAsKey)}.`
          : who.malformedCredential
            ? MALFORMED_KEY_WARNING
            : UNKNOWN_KEY_WARNING;
        opts.setHeader?.(KEY_WARNING_HEADER, warning);
      }
      const value = await run(op, rawInput, who, opts, requestId, machine);
      const ms = performance.now() - started;
      deps.observe?.(op, 200, ms, opts.surface);
      log.debug('operation done', { request_id: requestId, op: op.id, surface: opts.surface, ms: Math.round(ms * 100) / 100 });
      return warning === undefined ? { ok: true, value, requestId } : { ok: true, value, requestId, warning };
    } catch (err) {
      const error = refusalFor(toCoreError(err), who);
      deps.observe?.(op, error.status, performance.now() - started, opts.surface);
      if (error.code === 'INTERNAL') {
        log.error('operation failed', { request_id: requestId, op: op.id, surface: opts.surface, err, cause: error.cause });
      } else {
        log.info('operation refused', { request_id: requestId, op: op.id, surface: opts.surface, code: error.code, status: error.status });
      }
      return warning === undefined ? { ok: false, error, requestId } : { ok: false, error, requestId, warning };
    }
  }

  /** For a role-checked operation called with a credential: the machine read goes out beside the key's. */
  function prefetchMachine(op: Operation, rawInput: unknown, creds: Credentials): Prefetched | undefined {
    if (!op.def.guards || (creds.bearer === undefined && creds.session === undefined) || typeof rawInput !== 'object' || rawInput === null) return undefined;
    const slug = (rawInput as Record<string, unknown>)[op.def.guards];
    return typeof slug === 'string' && slug.length > 0 && slug.length <= 128 ? { slug, record: services.machines.prefetch(slug) } : undefined;
  }

  return {
    async admit(creds, clientIp) {
      let admission: Admission;
      try {
        admission = { caller: await authenticate(services, creds) };
      } catch (err) {
        admission = { refused: toCoreError(err) };
      }
      deps.rateLimiter?.take('caller' in admission ? admission.caller : ANONYMOUS, clientIp);
      return admission;
    },
    invoke: (op, rawInput, creds, opts) =>
      execute(
        op,
        opts.admission
          ? admitted(opts.admission)
          : async () => {
              const caller = await authenticate(services, creds);
              deps.rateLimiter?.take(caller, opts.clientIp);
              return caller;
            },
        rawInput,
        opts,
        prefetchMachine(op, rawInput, creds),
      ),
    invokeAs: (op, rawInput, caller, opts) =>
      execute(
        op,
        opts.chargeTo === undefined || deps.rateLimiter === undefined
          ? caller
          : async () => {
              for (const payer of opts.chargeTo!) deps.rateLimiter!.take(payer, opts.clientIp);
              return caller;
            },
        rawInput,
        opts,
      ),
  };
}

/** The caller an admission found, or its refusal thrown where `invoke` reports failures. */
function admitted(admission: Admission): Caller | (() => Promise<Caller>) {
  if ('caller' in admission) return admission.caller;
  return () => Promise.reject(admission.refused);
}

/**
 * A caller whose key was not counted may get NOT_FOUND only because of that (a private machine the key
 * could read is hidden from an anonymous caller): it is told the key is the problem instead. The same
 * answer for a machine that exists and one that does not, so nothing leaks.
 */
function refusalFor(error: CoreError, caller: Caller | undefined): CoreError {
  return caller?.unknownCredential && error.code === 'NOT_FOUND' ? errors.unauthenticated(caller) : error;
}

/** A machine document asked for before authentication, for the role check (see `MachinesService.prefetch`). */
interface Prefetched {
  slug: string;
  record: Promise<MachineRecord | undefined>;
}

const NO_PROGRESS = (): void => undefined;

/**
 * The handler's context. A class rather than an object literal with getters: a literal with accessors
 * and spreads is rebuilt through V8's slow path on every call, which showed up as the pipeline's top
 * self-time and much of its garbage in the CPU profile. The child logger and the abort signal are
 * still made only when a handler reads them.
 */
class CallContext implements ActionContext {
  progress: (update: ProgressUpdate) => void;
  declare clientIp?: string;
  declare setHeader?: (name: string, value: string) => void;
  declare agent?: AgentActor;
  declare cookie?: (name: string) => string | undefined;
  declare machine?: MachineRecord;
  declare role?: Role;
  #log: Logger | undefined;

  constructor(
    readonly caller: Caller,
    readonly requestId: string,
    readonly services: Services,
    readonly app: AppServices,
    private readonly baseLog: Logger,
    private readonly opId: string,
    private readonly opts: InvokeOptions,
    private readonly again: () => Promise<void>,
  ) {
    this.progress = opts.progress ?? NO_PROGRESS;
    if (opts.clientIp !== undefined) this.clientIp = opts.clientIp;
    if (opts.setHeader) this.setHeader = opts.setHeader;
    if (opts.cookie) this.cookie = opts.cookie;
  }

  stillAllowed(): Promise<void> {
    return this.again();
  }

  get log(): Logger {
    return (this.#log ??= this.baseLog.child({ request_id: this.requestId, op: this.opId }));
  }

  get signal(): AbortSignal {
    const signal = this.opts.signal;
    return typeof signal === 'function' ? signal() : (signal ?? NEVER_ABORTED);
  }
}
