import type { Caller } from '../domain/identity/caller.js';
import type { EndpointEntry, EndpointMap, EndpointQuery, OpenApiDocument } from './description-shapes.js';

/**
 * What handlers reach besides the domain: operations that run other operations or describe the API.
 * The registry declares only their shape; `src/application/` implements them above the pipeline and
 * the composition root hands them to every handler as `ctx.app`, so nothing here depends on the pipeline.
 */
export interface AppServices {
  /** `core_http`: URL parsing, route matching, the call as the caller, event collection for streams. */
  relay: HttpRelay;
  /** The self-check behind the conformance badge, run on a throwaway core. */
  selfCheck: SelfCheck;
  /** The API's description of itself: the catalogue and OpenAPI, narrowed by the surface controls. */
  description: ApiDescription;
}

export interface HttpCall {
  method: string;
  path: string;
  query?: Record<string, unknown>;
  body?: Record<string, unknown>;
  max_events: number;
  max_ms: number;
}

/** What the relay reads of the calling handler's context (a part of `ActionContext`). */
export interface RelayContext {
  caller: Caller;
  requestId: string;
  signal: AbortSignal;
  clientIp?: string;
}

/** `core_http`: any operation by method and path, run through the pipeline as the calling caller. */
export interface HttpRelay {
  /** Validates against the matched operation first, then runs it as the caller; a stream is collected for a bounded time. */
  call(call: HttpCall, ctx: RelayContext): Promise<Record<string, unknown>>;
}

export interface SelfCheckReport {
  /** Operations that answered: with a result, or with an expected refusal (a 4xx code). */
  passed: number;
  /** Of the passed ones, those that answered with a result. */
  succeeded: number;
  /** Operations that failed: not implemented, an internal error (an output off its schema included), or no answer in time. */
  failed: number;
  /** Operations not run: those reaching beyond the node, and the badge itself. */
  skipped: number;
  total: number;
  failures: Array<{ op: string; reason: string }>;
  checked_at: string;
}

export interface SelfCheck {
  /** The report, computed on first use and kept for the life of the process (the code it checks does not change). */
  report(): Promise<SelfCheckReport>;
}

export interface ApiDescription {
  searchEndpoints(query: EndpointQuery): { ok: true; count: number; version: string; endpoints: EndpointEntry[] };
  openapi(): OpenApiDocument;
  /** What `core_api_catalog` answers to a call without arguments. */
  endpointMap(): EndpointMap;
}
