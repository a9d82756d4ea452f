import { z } from 'zod';
import { IsoDate, JsonObject, Slug, Tick } from '../../src/registry/common-schemas.js';
import type { PlanTier as CdnPlanTier, Rule as EdgeRule, Site as CdnSite } from '../../src/domain/edge/cdn-site-repository.js';
import type { Device as RegisteredDevice, Threat as ThreatClaim } from '../../src/domain/edge/threat-repository.js';
import type { RuleKind as EdgeRuleKind } from '../../src/domain/edge/cdn-rules.js';
import { wireShape } from '../../src/registry/wire-shape.js';

export const MachineSlug = Slug;

export const SiteId = z.string().min(1).max(128).describe('Site id, from register');

export const PlanTier = wireShape<CdnPlanTier>()(z.enum(['free', 'pro', 'business']));

export const RuleKind = wireShape<EdgeRuleKind>()(z.enum(['page_rule', 'redirect', 'header', 'block']));

export const Site = wireShape<CdnSite>()(
  z.object({
    id: z.string(),
    edge_id: z
      .string()
      .regex(/^[0-9a-f]{16}$/)
      .describe('16 hex characters; the CNAME target label'),
    hostname: z.string(),
    origin_url: z.string(),
    plan_tier: PlanTier,
    machine_slug: Slug,
    status: z.string().describe('e.g. "pending_cname" until the CNAME resolves, then "active"'),
    insecure_origin_allowed: z.boolean(),
    free_tier_daily_cap: z.number().int().nullable().describe('Requests per day on the free tier; null when uncapped'),
    created_at: IsoDate,
  }),
);

export const Rule = wireShape<EdgeRule>()(
  z.object({
    rule_id: z.string(),
    site_id: z.string(),
    kind: RuleKind,
    match_pattern: z.string(),
    action_json: JsonObject.describe('What the rule does, by kind (target URL, header values, ...)'),
    priority: z.number().int().describe('Unique per site; lower wins'),
    enabled: z.boolean(),
    updated_at: IsoDate,
  }),
);

export const Threat = wireShape<ThreatClaim>()(
  z.object({
    transition_id: z.string(),
    tick: Tick,
    claim_type: z.string(),
    device_id: z.string(),
    fingerprint: z.string().describe('Stable digest of the claim, for grouping repeats'),
    s_forensic: z.number().describe('Forensic score computed from the claim scores'),
    fired: z.boolean().describe("Whether the claim fired the machine's event-triggered contracts"),
  }),
);

export const Device = wireShape<RegisteredDevice>()(
  z.object({
    device_id: z.string(),
    name: z.string(),
    os: z.string(),
    installed_tick: Tick,
    transition_id: z.string().describe('Audit transition that recorded the registration'),
  }),
);
