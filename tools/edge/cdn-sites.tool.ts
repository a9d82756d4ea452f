import { z } from 'zod';
import { defineAction, defineTool } from '../../src/registry/types.js';
import { JsonObject, Slug, Tick } from '../../src/registry/common-schemas.js';
import { MachineSlug, PlanTier, Rule, RuleKind, Site, SiteId } from './edge.schemas.js';

/** Reads of one site may omit the slug: the site id is global and the site names its machine. */
const OptionalSlug = MachineSlug.optional().describe('Machine the site belongs to; checked against the site when given');

export const cdnSitesTool = defineTool({
  name: 'core_cdn_sites',
  toolset: 'edge',
  title: 'CDN site manager',
  description:
    'Content-delivery sites of a machine: register a hostname in front of an origin, read sites and their request analytics, manage edge rules (page rule, redirect, header, block) and purge cached paths. Writes need admin on the machine.',
  actions: [
    defineAction({
      id: 'cdn.listSites',
      action: 'list',
      method: 'GET',
      path: '/api/cf/sites',
      auth: 'public',
      area: 'edge',
      summary: "Lists the machine's CDN sites.",
      input: z.object({ slug: MachineSlug }),
      output: z.object({ ok: z.literal(true), slug: Slug, sites: z.array(Site) }),
      idempotent: true,
      handler: async ({ slug }, { services, caller }) => ({ ok: true as const, slug, sites: await services.cdnSites.list(slug, caller) }),
    }),
    defineAction({
      id: 'cdn.registerSite',
      action: 'register',
      method: 'POST',
      path: '/api/cf/sites',
      auth: 'public',
      role: 'admin',
      guards: 'slug',
      area: 'edge',
      summary:
        'Registers a hostname in front of an origin URL; re-registering the same site returns it with already_registered, a hostname taken elsewhere is a CONFLICT.',
      input: z.object({
        slug: MachineSlug,
        hostname: z
          .string()
          .min(3)
          .max(253)
          .regex(/^([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/, 'a lower-case DNS hostname')
          .describe('Public hostname'),
        origin_url: z
          .url({ protocol: /^https?$/ })
          .max(2048)
          .describe('Origin the edge fetches from'),
        plan_tier: PlanTier.default('free'),
        insecure_origin_allowed: z.boolean().default(false).describe('Allow a plain-HTTP or self-signed origin'),
      }),
      output: z.object({
        ok: z.literal(true),
        site: Site,
        dns_instructions: z.object({
          cname_target: z.string(),
          edge_id: z.string(),
          hostname: z.string(),
          message: z.string(),
        }),
        already_registered: z.boolean(),
      }),
      idempotent: true,
      handler: async ({ slug, ...input }, { services, caller }) => {
        const { site, already_registered, cname_target } = await services.cdnSites.register(slug, input, caller);
        return {
          ok: true as const,
          site,
          dns_instructions: {
            cname_target,
            edge_id: site.edge_id,
            hostname: site.hostname,
            message: `Create a CNAME record for ${site.hostname} pointing to ${cname_target}; the site stays ${site.status} until then.`,
          },
          already_registered,
        };
      },
    }),
    defineAction({
      id: 'cdn.getSite',
      action: 'get',
      method: 'GET',
      path: '/api/cf/sites/{id}',
      auth: 'public',
      area: 'edge',
      summary: 'Reads one site with its rules.',
      input: z.object({ id: SiteId, slug: OptionalSlug }),
      output: z.object({ ok: z.literal(true), site: Site, rules: z.array(Rule) }),
      idempotent: true,
      handler: async ({ id, slug }, { services, caller }) => ({ ok: true as const, ...(await services.cdnSites.get(id, slug, caller)) }),
    }),
    defineAction({
      id: 'cdn.getAnalytics',
      action: 'analytics',
      method: 'GET',
      path: '/api/cf/sites/{id}/analytics',
      auth: 'public',
      area: 'edge',
      summary: 'Counts the requests served (/s/{slug}/...); over the last 60 ticks, 24 hours or 7 days, in time buckets and by status.',
      input: z.object({
        id: SiteId,
        slug: OptionalSlug,
        window: z.enum(['60z', '24h', '7d']).default('24h').describe('"60z": the last 60 ticks'),
      }),
      output: z.object({
        ok: z.literal(true),
        site_id: z.string(),
        window: z.enum(['60z', '24h', '7d']),
        total_requests: z.number().int().min(0),
        buckets: z.array(
          z.object({
            from_tick: Tick,
            to_tick: Tick.describe('Exclusive end of the bucket'),
            requests: z.number().int().min(0),
          }),
        ),
        by_status: z.record(z.string(), z.number().int().min(0)).describe('Requests per HTTP status code'),
      }),
      idempotent: true,
      handler: async ({ id, slug, window }, { services, caller }) => ({
        ok: true as const,
        site_id: id,
        window,
        ...(await services.cdnSites.analytics(id, slug, window, caller)),
      }),
    }),
    defineAction({
      id: 'cdn.upsertRule',
      action: 'upsert_rule',
      method: 'POST',
      path: '/api/cf/sites/{id}/rules',
      auth: 'public',
      role: 'admin',
      guards: 'slug',
      area: 'edge',
      summary: 'Creates a rule on a site; replaces the rule that already holds the same priority.',
      input: z.object({
        id: SiteId,
        slug: MachineSlug,
        kind: RuleKind,
        match_pattern: z
          .string()
          .min(1)
          .max(1024)
          .describe('Glob over the page path below /s/{slug}, starting with "/" or "*"; "*" matches any characters, "/" included, e.g. "/blog/*"'),
        action_json: JsonObject.describe(
          'What the rule does: redirect {url, status?}, header {name, value} (name: X-Frame-Options, Referrer-Policy, X-Robots-Tag, Content-Language, Content-Disposition, Permissions-Policy or a custom X- header), block {status?, reason?}, page_rule {cache?, cache_ttl_s?, always_https?}',
        ),
        priority: z.number().int().min(0).max(100_000).describe('Unique per site, lower wins; an existing rule at this priority is replaced'),
        enabled: z.boolean().default(true),
      }),
      output: z.object({ ok: z.literal(true), rule: Rule, created: z.boolean().describe('False when an existing rule was replaced') }),
      idempotent: true,
      handler: async ({ id, slug, ...rule }, { services, caller }) => ({ ok: true as const, ...(await services.cdnSites.upsertRule(id, slug, rule, caller)) }),
    }),
    defineAction({
      id: 'cdn.deleteRule',
      action: 'delete_rule',
      method: 'DELETE',
      path: '/api/cf/sites/{id}/rules/{rule_id}',
      auth: 'public',
      role: 'admin',
      guards: 'slug',
      area: 'edge',
      summary: 'Deletes one rule of a site.',
      input: z.object({
        id: SiteId,
        rule_id: z.string().min(1).max(128).describe('Rule id'),
        slug: MachineSlug,
      }),
      output: z.object({ ok: z.literal(true), deleted: z.literal(true), rule_id: z.string() }),
      destructive: true,
      idempotent: true,
      handler: async ({ id, slug, rule_id }, { services, caller }) => {
        await services.cdnSites.deleteRule(id, slug, rule_id, caller);
        return { ok: true as const, deleted: true as const, rule_id };
      },
    }),
    defineAction({
      id: 'cdn.purge',
      action: 'purge',
      method: 'POST',
      path: '/api/cf/sites/{id}/purge',
      auth: 'public',
      role: 'admin',
      guards: 'slug',
      area: 'edge',
      summary:
        'Purges the cached paths given, or all. Paths are as served under /s/{slug}, e.g. "/index.html"; all: true purges everything; returns how many were purged.',
      input: z.object({
        id: SiteId,
        slug: MachineSlug,
        paths: z.array(z.string().min(1).max(2048).startsWith('/')).min(1).max(1000).optional().describe('Paths to purge; give this or all'),
        all: z.boolean().optional().describe('Purge the whole site'),
      }),
      output: z.object({ ok: z.literal(true), purged: z.number().int().min(0) }),
      idempotent: true,
      handler: async ({ id, slug, paths, all }, { services, caller }) => ({
        ok: true as const,
        purged: await services.cdnSites.purge(id, slug, { paths, all }, caller),
      }),
    }),
  ],
});
