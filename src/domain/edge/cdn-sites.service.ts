import { randomBytes } from 'node:crypto';
import { CoreError, errors } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import { digestOf, randomToken } from '../../lib/hash.js';
import type { Caller } from '../identity/caller.js';
import { DuplicateKeyError } from '../../storage/port.js';
import type { ChainService } from '../chain/chain.service.js';
import type { MachineRecord } from '../chain/machine.js';
import type { MachinesService } from '../chain/machines.service.js';
import { checkMatchPattern, normalizeRuleAction, type RuleKind } from './cdn-rules.js';
import { type PlanTier, type Rule, type Site, type CdnSiteRepository } from './cdn-site-repository.js';
import type { AnalyticsWindow, Analytics, CdnTraffic } from './cdn-traffic.js';

export type { PlanTier, Rule, Site } from './cdn-site-repository.js';

export interface RegisterInput {
  hostname: string;
  origin_url: string;
  plan_tier: PlanTier;
  insecure_origin_allowed: boolean;
}

export interface RuleInput {
  kind: RuleKind;
  match_pattern: string;
  action_json: Record<string, unknown>;
  priority: number;
  enabled: boolean;
}

const MAX_RULES = 200;
const FREE_DAILY_CAP = 100_000;

export interface CdnSitesService {
  register(slug: string, input: RegisterInput, caller: Caller): Promise<{ site: Site; already_registered: boolean; cname_target: string }>;
  list(slug: string, caller: Caller): Promise<Site[]>;
  /** A site the caller may read (its machine readable); NOT_FOUND otherwise, or when `slug` is given and is not its machine. */
  get(id: string, slug: string | undefined, caller: Caller): Promise<{ site: Site; rules: Rule[] }>;
  analytics(id: string, slug: string | undefined, window: AnalyticsWindow, caller: Caller): Promise<Analytics>;
  upsertRule(id: string, slug: string, input: RuleInput, caller: Caller): Promise<{ rule: Rule; created: boolean }>;
  deleteRule(id: string, slug: string, ruleId: string, caller: Caller): Promise<void>;
  purge(id: string, slug: string, target: { paths?: string[] | undefined; all?: boolean | undefined }, caller: Caller): Promise<number>;
}

/**
 * CDN sites of machines: a hostname (unique on the node) in front of an origin, with edge rules. The
 * DNS check is not made here: a site stays `pending_cname` and the answer says what CNAME to set.
 * Every change is an audited row of the site's machine.
 */
export function createCdnSitesService(deps: {
  cdnSiteRecords: CdnSiteRepository;
  clock: Clock;
  chain: ChainService;
  machines: MachinesService;
  traffic: CdnTraffic;
  /** The in-memory rule sets of machine pages (`cdn-edge.service.ts`): told of every change at once. */
  edge: { invalidate(slug: string): void };
  /** Domain under which CNAME targets are named, e.g. `edge.example.org`. */
  edgeDomain: () => string;
}): CdnSitesService {
  const { cdnSiteRecords, clock, chain, machines, traffic } = deps;
  const iso = () => new Date(clock.now()).toISOString();
  const cnameOf = (site: Site) => `${site.edge_id}.${deps.edgeDomain()}`;

  async function audit(machine: MachineRecord, caller: Caller, type: string, payload: Record<string, unknown>) {
    chain.assertWritable(machine);
    await chain.append(machine, { type, actor_uid: caller.uid, payload_digest: digestOf(payload), payload });
  }

  /** The site with its machine, or NOT_FOUND without naming the machine of a site the caller cannot read. */
  async function readable(id: string, slug: string | undefined, caller: Caller): Promise<{ site: Site; machine: MachineRecord }> {
    const site = await cdnSiteRecords.site(id);
    const missing = () => errors.notFound(slug ? `No CDN site "${id}" on machine "${slug}"` : `No CDN site "${id}"`);
    if (!site || (slug !== undefined && site.machine_slug !== slug)) throw missing();
    try {
      return { site, machine: (await machines.readable(site.machine_slug, caller)).machine };
    } catch (err) {
      if (err instanceof CoreError && err.code === 'NOT_FOUND') throw missing();
      throw err;
    }
  }

  const rulesOf = (siteId: string) => cdnSiteRecords.rulesOf(siteId);

  async function existing(hostname: string, slug: string, origin: string) {
    const claim = await cdnSiteRecords.claimOf(hostname);
    if (claim === undefined) return undefined;
    const site = await cdnSiteRecords.site(claim);
    if (!site || site.machine_slug !== slug) {
      throw errors.conflict(`The hostname "${hostname}" is already registered on this node`, { code: 'hostname_already_registered' });
    }
    if (site.origin_url !== origin) {
      throw errors.conflict(`"${hostname}" is already registered on "${slug}" with origin ${site.origin_url}; a site keeps its origin`, {
        code: 'hostname_already_registered',
        site_id: site.id,
      });
    }
    return site;
  }

  return {
    async register(slug, input, caller) {
      const { machine } = await machines.readable(slug, caller);
      const known = await existing(input.hostname, slug, input.origin_url);
      if (known) return { site: known, already_registered: true, cname_target: cnameOf(known) };
      chain.assertWritable(machine);
      const site: Site = {
        id: `site_${randomToken(16)}`,
        edge_id: randomBytes(8).toString('hex'),
        hostname: input.hostname,
        origin_url: input.origin_url,
        plan_tier: input.plan_tier,
        machine_slug: slug,
        status: 'pending_cname',
        insecure_origin_allowed: input.insecure_origin_allowed,
        free_tier_daily_cap: input.plan_tier === 'free' ? FREE_DAILY_CAP : null,
        created_at: iso(),
      };
      try {
        await cdnSiteRecords.claimHostname(input.hostname, site.id, slug);
      } catch (err) {
        if (!(err instanceof DuplicateKeyError)) throw err;
        // Registered by a concurrent call meanwhile: answer as for a repeat.
        const raced = await existing(input.hostname, slug, input.origin_url);
        return { site: raced!, already_registered: true, cname_target: cnameOf(raced!) };
      }
      await cdnSiteRecords.insertSite(site);
      deps.edge.invalidate(slug);
      traffic.track(slug);
      await audit(machine, caller, 'cdn.site.registered', {
        site_id: site.id,
        hostname: site.hostname,
        origin_url: site.origin_url,
        plan_tier: site.plan_tier,
      });
      return { site, already_registered: false, cname_target: cnameOf(site) };
    },

    async list(slug, caller) {
      await machines.readable(slug, caller);
      return cdnSiteRecords.sitesOf(slug);
    },

    async get(id, slug, caller) {
      const { site } = await readable(id, slug, caller);
      return { site, rules: await rulesOf(site.id) };
    },

    async analytics(id, slug, window, caller) {
      const { site } = await readable(id, slug, caller);
      return traffic.analytics(site.machine_slug, window);
    },

    async upsertRule(id, slug, input, caller) {
      const { site, machine } = await readable(id, slug, caller);
      checkMatchPattern(input.match_pattern);
      const action_json = normalizeRuleAction(input.kind, input.action_json);
      const current = await cdnSiteRecords.ruleAt(site.id, input.priority);
      if (!current && (await rulesOf(site.id)).length >= MAX_RULES) {
        throw errors.unprocessable(`A site has at most ${MAX_RULES} rules; delete one or replace one by reusing its priority`);
      }
      let created = false;
      const rule = (await cdnSiteRecords.updateRuleAt(site.id, input.priority, (prev) => {
        created = prev === undefined;
        return {
          rule_id: prev?.rule_id ?? `rule_${randomToken(16)}`,
          site_id: site.id,
          kind: input.kind,
          match_pattern: input.match_pattern,
          action_json,
          priority: input.priority,
          enabled: input.enabled,
          updated_at: iso(),
        };
      }))!;
      deps.edge.invalidate(site.machine_slug);
      await audit(machine, caller, 'cdn.rule.upserted', { site_id: site.id, rule_id: rule.rule_id, kind: rule.kind, priority: rule.priority, created });
      return { rule, created };
    },

    async deleteRule(id, slug, ruleId, caller) {
      const { site, machine } = await readable(id, slug, caller);
      const rule = (await cdnSiteRecords.rulesOf(site.id)).find((r) => r.rule_id === ruleId);
      if (!rule || !(await cdnSiteRecords.deleteRuleAt(site.id, rule.priority))) {
        throw errors.notFound(`No rule "${ruleId}" on site "${site.id}"; GET /api/cf/sites/${site.id} lists its rules`);
      }
      deps.edge.invalidate(site.machine_slug);
      await audit(machine, caller, 'cdn.rule.deleted', { site_id: site.id, rule_id: ruleId });
    },

    async purge(id, slug, target, caller) {
      if ((target.all === true) === (target.paths !== undefined)) {
        throw errors.validation('Give either paths (a list of paths starting with "/") or all: true', {
          issues: [{ path: 'paths', message: 'exactly one of paths and all: true', code: 'invalid_purge' }],
        });
      }
      const { site, machine } = await readable(id, slug, caller);
      const purged = traffic.purge(site.machine_slug, target.all ? 'all' : target.paths!);
      deps.edge.invalidate(site.machine_slug);
      await audit(machine, caller, 'cdn.purged', { site_id: site.id, ...(target.all ? { all: true } : { paths: target.paths! }), purged });
      return purged;
    },
  };
}
