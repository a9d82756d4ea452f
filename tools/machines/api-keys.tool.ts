import { z } from 'zod';
import { defineAction, defineTool } from '../../src/registry/types.js';
import { Id, IsoDate } from '../../src/registry/common-schemas.js';
import { ApiKey, MachineSlug } from './machines.schemas.js';

export const apiKeysTool = defineTool({
  name: 'core_api_keys',
  toolset: 'machines',
  title: 'Machine API keys',
  description:
    "Manages a machine's developer API keys: list them (never with raw values), mint one with a scope (read, write or admin), optional rate-limit tier and expiry, or revoke one. Needs the admin role or higher; a new key's raw value is returned only once.",
  actions: [
    defineAction({
      id: 'chain.listApiKeys',
      action: 'list',
      method: 'GET',
      path: '/api/chain/{slug}/api-keys',
      auth: 'public',
      role: 'admin',
      guards: 'slug',
      area: 'chain',
      summary: 'Lists the active keys: name, scope, tier, expiry and prefix, never the raw key.',
      input: z.object({ slug: MachineSlug }),
      output: z.object({ ok: z.literal(true), slug: z.string(), keys: z.array(ApiKey) }),
      idempotent: true,
      handler: async ({ slug }, { services, caller }) => ({ ok: true as const, slug, keys: await services.apiKeys.list(slug, caller) }),
    }),
    defineAction({
      id: 'chain.createApiKey',
      lastingAccess: 'Minting an API key',
      action: 'create',
      method: 'POST',
      path: '/api/chain/{slug}/api-keys',
      auth: 'public',
      role: 'admin',
      guards: 'slug',
      area: 'chain',
      summary: 'Mints a developer key; returns its metadata and the raw key, which is shown only this once.',
      input: z.object({
        slug: MachineSlug,
        name: z.string().min(1).max(100).describe('Key label'),
        scope: z
          .enum(['read', 'write', 'admin'])
          .default('read')
          .describe('read: reads only; write: also append rows and run contracts; admin: also manage keys and members'),
        rate_limit_tier: z
          .string()
          .min(1)
          .max(32)
          .optional()
          .describe(
            "Rate-limit tier: free, standard (the node default), starter, builder, advanced, architect, or one set by CORE_RATE_TIERS; no more generous than your own key's",
          ),
        expires_at: IsoDate.optional().describe('When the key stops working; never when omitted'),
      }),
      output: z.object({
        ok: z.literal(true),
        key: ApiKey,
        api_key: z.string().describe('Raw key (`core_...`); shown once, only its SHA-256 is stored'),
      }),
      handler: async ({ slug, ...input }, { services, caller }) => {
        if (input.rate_limit_tier !== undefined) services.rateTiers.assertAssignable(input.rate_limit_tier, caller.rateTier);
        return { ok: true as const, ...(await services.apiKeys.create(slug, caller, input)) };
      },
    }),
    defineAction({
      id: 'chain.revokeApiKey',
      action: 'revoke',
      method: 'DELETE',
      path: '/api/chain/{slug}/api-keys/{id}',
      auth: 'public',
      role: 'admin',
      guards: 'slug',
      area: 'chain',
      summary: 'Revokes a key; requests made with it are refused from then on.',
      input: z.object({ slug: MachineSlug, id: Id.describe('Key id, from list') }),
      output: z.object({
        ok: z.literal(true),
        id: z.string(),
        revoked: z.boolean().describe('False when the key was already revoked'),
      }),
      destructive: true,
      idempotent: true,
      handler: async ({ slug, id }, { services, caller }) => ({
        ok: true as const,
        id,
        revoked: await services.apiKeys.revoke(slug, caller, id),
      }),
    }),
  ],
});
