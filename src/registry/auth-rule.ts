import type { ActionDef, AuthRule } from './types.js';

/**
 * Whether an operation answers 401 to a caller without a key, as the pipeline enforces it: a bearer
 * route, a route that checks a role on a machine (no role without an identity), or a route the spec
 * lists as public whose operation acts for a known caller (`callerRequired`). The catalogue, OpenAPI
 * and the tool descriptors all state this, never the spec's column alone.
 */
export function keyRequired(def: ActionDef): boolean {
  return def.auth === 'bearer' || def.role !== undefined || def.callerRequired === true;
}

/** The auth rule every surface states for an operation. */
export function effectiveAuth(def: ActionDef): AuthRule {
  return keyRequired(def) ? 'bearer' : 'public';
}
