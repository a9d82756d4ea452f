import type { Clock } from '../../lib/clock.js';
import type { Caller } from '../identity/caller.js';
import type { MachinesService } from '../chain/machines.service.js';
import { compileGlob, decide, SERVE_AS_IS, type CompiledRule, type EdgeDecision, type PageRequest } from './cdn-match.js';
import { checkMatchPattern, normalizeRuleAction } from './cdn-rules.js';
import type { CdnSiteRepository } from './cdn-site-repository.js';

/** A page request, with the Host header for an https redirect when the node has no public URL. */
export interface EdgePageRequest extends PageRequest {
  host: string | undefined;
}

export interface CdnEdge {
  /**
   * What the enabled rules of the machine's CDN sites make of a page request (see `decide`). A
   * machine without rules costs one map lookup once its (empty) rule set is cached. A machine with
   * rules is checked readable first: NOT_FOUND for a visitor who cannot read it, so no rule's
   * answer (a block, a redirect) tells a stranger that a private machine exists.
   */
  decide(slug: string, caller: Caller, req: EdgePageRequest): Promise<EdgeDecision>;
  /** Forgets the machine's rule set: the next page request reads it again (call after any change). */
  invalidate(slug: string): void;
}

/**
 * Rule sets are read again after this long even without an invalidation, so a change made by
 * another process sharing the store (PostgreSQL) takes effect within it.
 */
const RULE_SET_TTL_MS = 10_000;
const MAX_CACHED_MACHINES = 10_000;
const HOST = /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/**
 * The edge rules of machine pages, held in memory per machine: all enabled rules of all the
 * machine's sites, compiled and sorted by priority (ties: older site first). Rules stored before a
 * stricter check and no longer valid are left out rather than applied half-understood.
 */
export function createCdnEdge(deps: { cdnSiteRecords: CdnSiteRepository; clock: Clock; machines: MachinesService; publicUrl: string | undefined }): CdnEdge {
  const { clock, machines } = deps;
  const { cdnSiteRecords } = deps;
  const cache = new Map<string, { at: number; rules: Promise<CompiledRule[]> }>();
  const publicHttps = deps.publicUrl ? httpsOriginOfPublicUrl(deps.publicUrl) : undefined;

  async function load(slug: string): Promise<CompiledRule[]> {
    const sites = await cdnSiteRecords.sitesOf(slug);
    if (sites.length === 0) return [];
    const order = new Map([...sites].sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id)).map((s, i) => [s.id, i]));
    const stored = (await Promise.all(sites.map((s) => cdnSiteRecords.enabledRulesOf(s.id)))).flat();
    stored.sort((a, b) => a.priority - b.priority || order.get(a.site_id)! - order.get(b.site_id)!);
    const compiled: CompiledRule[] = [];
    for (const rule of stored) {
      try {
        checkMatchPattern(rule.match_pattern);
        const action = normalizeRuleAction(rule.kind, rule.action_json);
        compiled.push({ kind: rule.kind, priority: rule.priority, matches: compileGlob(rule.match_pattern), action });
      } catch {
        continue;
      }
    }
    return compiled;
  }

  function rulesOf(slug: string): Promise<CompiledRule[]> {
    const now = clock.now();
    const held = cache.get(slug);
    if (held && now >= held.at && now - held.at < RULE_SET_TTL_MS) return held.rules;
    cache.delete(slug);
    if (cache.size >= MAX_CACHED_MACHINES) cache.delete(cache.keys().next().value!);
    const entry = { at: now, rules: load(slug) };
    cache.set(slug, entry);
    // A failed read is not kept: the next request tries again.
    entry.rules.catch(() => {
      if (cache.get(slug) === entry) cache.delete(slug);
    });
    return entry.rules;
  }

  function httpsOrigin(host: string | undefined): string | undefined {
    if (publicHttps) return publicHttps;
    if (!host || !HOST.test(host)) return undefined;
    // https on its default port: the port of a plain-http listener would not speak TLS.
    return `https://${host.replace(/:\d+$/, '')}`;
  }

  return {
    async decide(slug, caller, req) {
      const rules = await rulesOf(slug);
      if (rules.length === 0) return SERVE_AS_IS;
      await machines.readable(slug, caller);
      const { host, ...page } = req;
      return decide(rules, page, { slug, httpsOrigin: httpsOrigin(host) });
    },

    invalidate(slug) {
      cache.delete(slug);
    },
  };
}

/** The https origin of the configured public URL (its host, and its port only if it is https already). */
function httpsOriginOfPublicUrl(publicUrl: string): string | undefined {
  try {
    const url = new URL(publicUrl);
    return url.protocol === 'https:' ? url.origin : `https://${url.hostname}`;
  } catch {
    return undefined;
  }
}
