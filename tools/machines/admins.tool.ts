import { z } from 'zod';
import { defineAction, defineTool } from '../../src/registry/types.js';
import { MachineRole, Uid } from '../../src/registry/common-schemas.js';
import { AdminGrant, MachineSlug } from './machines.schemas.js';

const Role = MachineRole.describe('admin: also keys and members; operator: also writes and contracts; viewer: reads');

export const adminsTool = defineTool({
  name: 'core_admins',
  toolset: 'machines',
  title: 'Machine members',
  description:
    "Manages who may act on a machine: list its members, grant a uid the admin, operator or viewer role, change a member's role, or remove a member. Listing needs the viewer role; changes need admin or higher; the owner is never a grant and cannot be removed.",
  actions: [
    defineAction({
      id: 'chain.listAdmins',
      action: 'list',
      method: 'GET',
      path: '/api/chain/{slug}/admins',
      auth: 'public',
      role: 'viewer',
      guards: 'slug',
      area: 'chain',
      summary: 'Lists the owner and members with their roles.',
      input: z.object({ slug: MachineSlug }),
      output: z.object({ ok: z.literal(true), slug: z.string(), owner_uid: Uid, admins: z.array(AdminGrant) }),
      idempotent: true,
      handler: async ({ slug }, { services, caller }) => ({ ok: true as const, slug, ...(await services.members.list(slug, caller)) }),
    }),
    defineAction({
      id: 'chain.addAdmin',
      lastingAccess: 'Granting a role to someone',
      action: 'add',
      method: 'POST',
      path: '/api/chain/{slug}/admins',
      auth: 'public',
      role: 'admin',
      guards: 'slug',
      area: 'chain',
      summary: 'Grants a uid a role. A uid that already has a grant is a conflict; returns the grant.',
      input: z.object({ slug: MachineSlug, uid: Uid.describe('Member to grant the role to'), role: Role }),
      output: z.object({ ok: z.literal(true), admin: AdminGrant }),
      handler: async ({ slug, uid, role }, { services, caller }) => ({
        ok: true as const,
        admin: await services.members.grant(slug, caller, uid, role),
      }),
    }),
    defineAction({
      id: 'chain.updateAdmin',
      lastingAccess: "Changing someone's role",
      action: 'update',
      method: 'PATCH',
      path: '/api/chain/{slug}/admins/{uid}',
      auth: 'public',
      role: 'admin',
      guards: 'slug',
      area: 'chain',
      summary: "Changes a member's role.",
      input: z.object({ slug: MachineSlug, uid: Uid.describe('Member whose role changes'), role: Role }),
      output: z.object({ ok: z.literal(true), admin: AdminGrant }),
      idempotent: true,
      handler: async ({ slug, uid, role }, { services, caller }) => ({
        ok: true as const,
        admin: await services.members.change(slug, caller, uid, role),
      }),
    }),
    defineAction({
      id: 'chain.removeAdmin',
      action: 'remove',
      method: 'DELETE',
      path: '/api/chain/{slug}/admins/{uid}',
      auth: 'public',
      role: 'admin',
      guards: 'slug',
      area: 'chain',
      summary: "Removes a member's grant; the uid keeps no role on the machine afterwards.",
      input: z.object({ slug: MachineSlug, uid: Uid.describe('Member to remove') }),
      output: z.object({
        ok: z.literal(true),
        uid: z.string(),
        removed: z.boolean().describe('False when the uid had no grant'),
      }),
      destructive: true,
      idempotent: true,
      handler: async ({ slug, uid }, { services, caller }) => ({
        ok: true as const,
        uid,
        removed: await services.members.revoke(slug, caller, uid),
      }),
    }),
  ],
});
