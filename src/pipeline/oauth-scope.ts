import { CoreError } from '../errors.js';
import type { Caller } from '../domain/identity/caller.js';
import { scopeCovers, scopeNeeded } from '../domain/oauth/oauth-scopes.js';
import type { Operation } from '../registry/registry.js';

/**
 * An OAuth token reaches only the operations its scope covers (`oauth-scopes.ts` maps scopes onto each
 * operation's method and role); beyond that the credential that granted it decides, as for any call.
 * FORBIDDEN with `oauth_error: insufficient_scope` (RFC 6750 §3.1), which HTTP answers with its challenge.
 */
export function assertOAuthScope(op: Operation, caller: Caller): void {
  // The relay (`core_http`) is checked on the operation it runs, as read-only mode checks it.
  if (!caller.oauth || op.response.kind === 'relay') return;
  const needed = scopeNeeded(op.method, op.def.role);
  if (scopeCovers(caller.oauth.scope, needed)) return;
  throw new CoreError(
    'FORBIDDEN',
    `This OAuth token has the "${caller.oauth.scope}" scope; ${op.id} needs "${needed}". Authorize the client again and choose "${needed}" on the consent page`,
    { oauth_error: 'insufficient_scope', scope: needed },
  );
}
