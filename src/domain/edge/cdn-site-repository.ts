import type { Store } from '../../storage/port.js';
import type { RuleKind } from './cdn-rules.js';

export type PlanTier = 'free' | 'pro' | 'business';

export interface Site {
  id: string;
  edge_id: string;
  hostname: string;
  origin_url: string;
  plan_tier: PlanTier;
  machine_slug: string;
  status: string;
  insecure_origin_allowed: boolean;
  free_tier_daily_cap: number | null;
  created_at: string;
}

export interface Rule {
  rule_id: string;
  site_id: string;
  kind: RuleKind;
  match_pattern: string;
  action_json: Record<string, unknown>;
  priority: number;
  enabled: boolean;
  updated_at: string;
}

const SITES = 'cdn-sites';
/** Hostname → site: one claim per hostname on the node, taken before the site is written. */
const HOSTNAMES = 'cdn-hostnames';
/** One rule per (site, priority). */
const RULES = 'cdn-rules';
const ruleKey = (siteId: string, priority: number) => `${siteId}|${priority}`;

/** CDN sites, their hostname claims and their edge rules: the only module that names their collections. */
export interface CdnSiteRepository {
  site(id: string): Promise<Site | undefined>;
  /** A machine's sites, in registration order (bounded by the machine's quota of sites). */
  sitesOf(slug: string): Promise<Site[]>;
  /**
   * The machine of every site, one entry per site: read by the traffic counter when it starts and after
   * each flush, never on a request.
   */
  siteMachineSlugs(): Promise<string[]>;
  /** The site holding `hostname`, if any. */
  claimOf(hostname: string): Promise<string | undefined>;
  /** Takes the hostname for the site; fails with `DuplicateKeyError` when it is taken. */
  claimHostname(hostname: string, siteId: string, slug: string): Promise<void>;
  insertSite(site: Site): Promise<void>;
  /** A site's rules, lowest priority first (at most `MAX_RULES`). */
  rulesOf(siteId: string): Promise<Rule[]>;
  /** A site's enabled rules, in no particular order. */
  enabledRulesOf(siteId: string): Promise<Rule[]>;
  ruleAt(siteId: string, priority: number): Promise<Rule | undefined>;
  /** Read-modify-write of the rule at a priority; returns what is stored afterwards. */
  updateRuleAt(siteId: string, priority: number, fn: (current: Rule | undefined) => Rule | undefined): Promise<Rule | undefined>;
  /** Returns whether a rule was there. */
  deleteRuleAt(siteId: string, priority: number): Promise<boolean>;
}

export function createCdnSiteRepository(store: Store): CdnSiteRepository {
  return {
    site: (id) => store.docs.get<Site>(SITES, id),
    sitesOf: async (slug) => (await store.docs.find<Site>(SITES, { machine_slug: slug })).items,
    siteMachineSlugs: async () => (await store.docs.list<Site>(SITES)).map((s) => s.machine_slug),
    claimOf: async (hostname) => (await store.docs.get<{ site_id: string }>(HOSTNAMES, hostname))?.site_id,
    claimHostname: (hostname, siteId, slug) => store.docs.insert(HOSTNAMES, hostname, { hostname, site_id: siteId, slug }),
    insertSite: (site) => store.docs.insert(SITES, site.id, site),
    rulesOf: async (siteId) => (await store.docs.find<Rule>(RULES, { site_id: siteId })).items.sort((a, b) => a.priority - b.priority),
    enabledRulesOf: async (siteId) => (await store.docs.find<Rule>(RULES, { site_id: siteId, enabled: true })).items,
    ruleAt: (siteId, priority) => store.docs.get<Rule>(RULES, ruleKey(siteId, priority)),
    updateRuleAt: (siteId, priority, fn) => store.docs.update<Rule>(RULES, ruleKey(siteId, priority), fn),
    deleteRuleAt: (siteId, priority) => store.docs.delete(RULES, ruleKey(siteId, priority)),
  };
}
