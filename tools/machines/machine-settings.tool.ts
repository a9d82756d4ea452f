import { z } from 'zod';
import { defineAction, defineTool } from '../../src/registry/types.js';
import { IsoDate, MachineStatus, Tick } from '../../src/registry/common-schemas.js';
import { Machine, MachineSlug } from './machines.schemas.js';

const ShareToken = z
  .string()
  .describe(
    'Token granting read access; send it as the share_token argument of the reading tools (over HTTP also X-Share-Token or ?share_token=), never as the key',
  );

export const machineSettingsTool = defineTool({
  name: 'core_machine_settings',
  toolset: 'machines',
  title: 'Machine settings',
  description:
    'Changes how a machine behaves and who can read it: set its status (active, paused, archived), edit visibility, name, purpose and read password, unlock a password-protected machine, and turn share-token access on or off. All but unlock need the admin role or higher.',
  actions: [
    defineAction({
      id: 'chain.setMachineStatus',
      action: 'set_status',
      method: 'POST',
      path: '/api/chain/{slug}/status',
      auth: 'public',
      role: 'admin',
      guards: 'slug',
      area: 'chain',
      summary:
        "Sets the machine's status; paused refuses writes and keeps the chain, archived is read-only; records the change in the chain and returns old and new status.",
      input: z.object({
        slug: MachineSlug,
        status: MachineStatus.describe('New status'),
        reason: z.string().max(500).optional().describe('Why, recorded in the audit row'),
      }),
      output: z.object({
        ok: z.literal(true),
        slug: z.string(),
        status: MachineStatus,
        previous_status: MachineStatus,
        tick: Tick.describe('Tick of the change'),
      }),
      idempotent: true,
      handler: async ({ slug, status, reason }, { services, caller }) => ({
        ok: true as const,
        slug,
        ...(await services.machineSettings.setStatus(slug, caller, status, reason)),
      }),
    }),
    defineAction({
      id: 'chain.updateMachineSettings',
      lastingAccess: "Changing a machine's settings (they decide who may read it)",
      action: 'update_settings',
      method: 'PATCH',
      path: '/api/chain/{slug}/settings',
      auth: 'public',
      role: 'admin',
      guards: 'slug',
      area: 'chain',
      summary: 'Changes the settings given: visibility, display name, purpose, read password; returns the updated machine.',
      input: z.object({
        slug: MachineSlug,
        is_public: z.boolean().optional().describe('Make the machine public (readable by anyone, listed) or private'),
        display_name: z.string().min(1).max(255).nullable().optional().describe('New display name; null clears it'),
        purpose: z.string().max(4000).nullable().optional().describe('New purpose text; null clears it'),
        password: z.string().min(8).max(256).nullable().optional().describe('Read password for a private machine (stored hashed; see unlock); null removes it'),
      }),
      output: z.object({ ok: z.literal(true), machine: Machine }),
      idempotent: true,
      handler: async ({ slug, ...patch }, { services, caller }) => ({
        ok: true as const,
        machine: await services.machineSettings.updateSettings(slug, caller, patch),
      }),
    }),
    defineAction({
      id: 'chain.unlockMachine',
      action: 'unlock',
      method: 'POST',
      path: '/api/chain/{slug}/unlock',
      auth: 'public',
      area: 'chain',
      summary: 'Trades a read password for a short-lived share token; wrong passwords are refused and rate limited.',
      input: z.object({
        slug: MachineSlug,
        password: z.string().min(1).max(256).describe('The read password set in the machine settings'),
        ttl_ticks: z.number().int().min(1).max(111_197).default(4633).describe('Lifetime of the token in ticks (default 4,633, about 1 h; max about 24 h)'),
      }),
      output: z.object({
        ok: z.literal(true),
        slug: z.string(),
        share_token: ShareToken,
        scope: z.literal('read'),
        expires_tick: Tick,
        expires_at: IsoDate,
      }),
      handler: async ({ slug, password, ttl_ticks }, { services, caller, clientIp }) => ({
        ok: true as const,
        slug,
        scope: 'read' as const,
        ...(await services.machineSettings.unlock(slug, caller, password, ttl_ticks, clientIp)),
      }),
    }),
    defineAction({
      id: 'chain.setShareToken',
      lastingAccess: 'Issuing a share token',
      action: 'share_set',
      method: 'POST',
      path: '/api/chain/state-machines/{slug}/share/set',
      auth: 'public',
      role: 'admin',
      guards: 'slug',
      area: 'chain',
      summary: 'Issues a read-only share token; replaces any previous one and returns it with its expiry.',
      input: z.object({
        slug: MachineSlug,
        expires_at: IsoDate.optional().describe('When the token stops working; never when omitted'),
      }),
      output: z.object({
        ok: z.literal(true),
        slug: z.string(),
        share_token: ShareToken,
        expires_at: IsoDate.nullable(),
      }),
      destructive: true,
      handler: async ({ slug, expires_at }, { services, caller }) => ({
        ok: true as const,
        slug,
        ...(await services.machineSettings.setShare(slug, caller, expires_at)),
      }),
    }),
    defineAction({
      id: 'chain.disableShareToken',
      action: 'share_disable',
      method: 'POST',
      path: '/api/chain/state-machines/{slug}/share/disable',
      auth: 'public',
      role: 'admin',
      guards: 'slug',
      area: 'chain',
      summary: 'Revokes the share token. Then only members (and anyone, if the machine is public) can read the machine.',
      input: z.object({ slug: MachineSlug }),
      output: z.object({
        ok: z.literal(true),
        slug: z.string(),
        share_enabled: z.literal(false),
        revoked: z.boolean().describe('False when no share token was active'),
      }),
      destructive: true,
      idempotent: true,
      handler: async ({ slug }, { services, caller }) => ({
        ok: true as const,
        slug,
        share_enabled: false as const,
        revoked: await services.machineSettings.disableShare(slug, caller),
      }),
    }),
  ],
});
