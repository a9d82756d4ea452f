import type { HttpRelay } from './http-relay.js';
import type { SelfCheck } from './self-check.js';

/**
 * What handlers reach besides the domain: operations that run other operations through the registry
 * and the pipeline. They live above the pipeline, so the domain knows nothing of routes or transports.
 */
export interface AppServices {
  /** `core_http`: URL parsing, route matching, the call as the caller, event collection for streams. */
  relay: HttpRelay;
  /** The self-check behind the conformance badge, run on a throwaway core. */
  selfCheck: SelfCheck;
}
