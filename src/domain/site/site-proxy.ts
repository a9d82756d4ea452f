import type { Role } from '../identity/caller.js';

/**
 * What a site page may call through `/s/{slug}/sdk/core/{op}`, where `{op}` is an operation id of the
 * registry (`chain.getState`, `chain.appendEvent`, ...). A page runs for anyone who opens it, so:
 * - reads: operations scoped to this machine (`{slug}` in their path, filled in by the proxy) that are
 *   `GET`, public and need no role; they run with the visitor's own credentials (a share token
 *   still opens a private machine, nothing more);
 * - writes: only the operations listed in `SITE_WRITES`, and only while the machine has an active
 *   publish key; the proxy runs them as the site (`siteUid`: operator on this machine alone, recorded
 *   as the site, not the owner), so the key never reaches the browser, and revoking the key stops them
 *   at once; each takes from the visitor's request budget (key, else address) and the site's own;
 * - everything else (other machines, roles, keys, settings, contracts, deletions) is refused.
 */
export type ProxyRule =
  { kind: 'read' } | { kind: 'write'; prepare: (input: Record<string, unknown>) => Record<string, unknown> } | { kind: 'refused'; reason: string };

/** Row types written through a site are prefixed, so they stand apart from the owner's own rows. */
export const SITE_ROW_PREFIX = 'site.';

const SITE_UID_PREFIX = 'site:';

/**
 * The identity a site's proxied writes run and are recorded as: the site itself (`site:<slug>`), never
 * its owner. It holds the operator role on its own machine only (see `MachinesService`), and has its
 * own request budget, apart from the owner's.
 */
export function siteUid(slug: string): string {
  return `${SITE_UID_PREFIX}${slug}`;
}

export function isSiteUid(uid: string | null): boolean {
  return uid !== null && uid.startsWith(SITE_UID_PREFIX);
}

const SITE_WRITES: Record<string, (input: Record<string, unknown>) => Record<string, unknown>> = {
  'chain.appendEvent': (input) => ({
    ...input,
    type: `${SITE_ROW_PREFIX}${typeof input.type === 'string' ? input.type : 'event'}`.slice(0, 64),
  }),
};

/** What the rule reads of an operation's declaration. */
export interface ProxiedOperation {
  id: string;
  method: string;
  path: string;
  auth: string;
  role?: Role | undefined;
}

export function proxyRuleOf(def: ProxiedOperation): ProxyRule {
  if (!def.path.includes('{slug}')) {
    return { kind: 'refused', reason: `${def.id} is not scoped to one machine; a site may call only operations on its own machine` };
  }
  const write = SITE_WRITES[def.id];
  if (write) return { kind: 'write', prepare: write };
  if (def.method === 'GET' && def.auth === 'public' && def.role === undefined) return { kind: 'read' };
  return {
    kind: 'refused',
    reason: `${def.id} is not exposed to site pages: they may call public reads of their machine and ${Object.keys(SITE_WRITES).join(', ')}`,
  };
}
