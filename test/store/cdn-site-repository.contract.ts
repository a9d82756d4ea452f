import { describe, expect, it } from 'vitest';
import { createCdnSiteRepository, type Rule, type Site } from '../../src/domain/edge/cdn-site-repository.js';
import { createCdnTrafficRepository } from '../../src/domain/edge/cdn-traffic-repository.js';
import { DuplicateKeyError } from '../../src/storage/port.js';
import { freshStore, type MakeStore } from './store-harness.js';

const site = (id: string, slug: string): Site => ({
  id,
  edge_id: id,
  hostname: `${id}.example.org`,
  origin_url: 'https://o.example.org',
  plan_tier: 'free',
  machine_slug: slug,
  status: 'pending_cname',
  insecure_origin_allowed: false,
  free_tier_daily_cap: null,
  created_at: 't',
});
const rule = (siteId: string, priority: number, enabled = true): Rule => ({
  rule_id: `r${priority}`,
  site_id: siteId,
  kind: 'block',
  match_pattern: '/*',
  action_json: {},
  priority,
  enabled,
  updated_at: 't',
});

/** The CDN site repository (sites, hostname claims, rules) and the CDN traffic repository on every adapter. */
export function runCdnSiteRepositoryContract(name: string, makeStore: MakeStore): void {
  describe(`cdn site repository: ${name}`, () => {
    it('gives a hostname to one site, and finds a machine’s sites and a site’s rules by index', async () => {
      const { store } = await freshStore(makeStore);
      const sites = createCdnSiteRepository(store);
      await sites.claimHostname('a.example.org', 's1', 'm');
      await expect(sites.claimHostname('a.example.org', 's2', 'n')).rejects.toBeInstanceOf(DuplicateKeyError);
      expect(await sites.claimOf('a.example.org')).toBe('s1');
      expect(await sites.claimOf('b.example.org')).toBeUndefined();
      await sites.insertSite(site('s1', 'm'));
      await sites.insertSite(site('s2', 'n'));
      await sites.insertSite(site('s3', 'm'));
      expect((await sites.sitesOf('m')).map((s) => s.id)).toEqual(['s1', 's3']);
      expect(await sites.siteMachineSlugs()).toEqual(['m', 'n', 'm']);
      for (const [p, enabled] of [
        [5, true],
        [1, false],
        [3, true],
      ] as const)
        await sites.updateRuleAt('s1', p, () => rule('s1', p, enabled));
      await sites.updateRuleAt('s3', 2, () => rule('s3', 2));
      expect((await sites.rulesOf('s1')).map((r) => r.priority)).toEqual([1, 3, 5]);
      expect((await sites.enabledRulesOf('s1')).map((r) => r.priority).sort()).toEqual([3, 5]);
      await sites.updateRuleAt('s1', 3, (r) => r && { ...r, enabled: false });
      expect((await sites.enabledRulesOf('s1')).map((r) => r.priority)).toEqual([5]);
      expect(await sites.deleteRuleAt('s1', 5)).toBe(true);
      expect(await sites.ruleAt('s1', 5)).toBeUndefined();
      expect((await sites.rulesOf('s3')).map((r) => r.rule_id)).toEqual(['r2']);
    });

    it('reads a machine’s request counts from a tick on', async () => {
      const { store } = await freshStore(makeStore);
      const traffic = createCdnTrafficRepository(store);
      await traffic.append('m', () => ({ tick: 5, type: 'counts', counts: [[5, 200, 2]] }));
      await traffic.append('m', (head) => ({ tick: (head?.tick ?? 0) + 5, type: 'counts', counts: [[10, 404, 1]] }));
      expect((await traffic.since('m', 6)).map((r) => r.counts)).toEqual([[[10, 404, 1]]]);
      expect(await traffic.since('n', 0)).toEqual([]);
    });
  });
}
