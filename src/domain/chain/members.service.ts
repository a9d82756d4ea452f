import { errors } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import { digestOf } from '../../lib/hash.js';
import type { Caller, Role } from '../identity/caller.js';
import { isDeveloperUid, type IdentityService } from '../identity/identity.service.js';
import { canManageRole } from '../identity/roles.js';
import type { ChainService } from './chain.service.js';
import type { MachinesService } from './machines.service.js';
import type { MachineRecord, RoleGrant } from './machine.js';
import type { MachineRepository } from './machine-repository.js';

type MemberRole = RoleGrant['role'];

export interface MemberView {
  uid: string;
  role: MemberRole;
  granted_by: string | null;
  granted_at: string;
}

/**
 * Who holds which role on a machine besides its owner. Admins and the owner manage grants; nobody
 * grants, changes or removes a role above their own, and the owner is never a grant (so never demoted
 * or removed). Every change appends an `admin.*` row.
 */
export interface MembersService {
  list(slug: string, caller: Caller): Promise<{ owner_uid: string; admins: MemberView[] }>;
  grant(slug: string, caller: Caller, uid: string, role: MemberRole): Promise<MemberView>;
  change(slug: string, caller: Caller, uid: string, role: MemberRole): Promise<MemberView>;
  /** false when the uid had no grant. */
  revoke(slug: string, caller: Caller, uid: string): Promise<boolean>;
}

const view = (g: RoleGrant): MemberView => ({ uid: g.uid, role: g.role, granted_by: g.granted_by ?? null, granted_at: g.granted_at });

export function createMembersService(deps: {
  machineRecords: MachineRepository;
  clock: Clock;
  chain: ChainService;
  machines: MachinesService;
  identity: IdentityService;
}): MembersService {
  const { machineRecords, clock, chain, machines, identity } = deps;

  /** The machine and the caller's role on it (the pipeline has already checked it is at least admin). */
  const actorOn = (slug: string, caller: Caller): Promise<{ machine: MachineRecord; role: Role | 'none' }> => machines.readable(slug, caller);

  function refuse(actor: Role | 'none', target: Role | 'none', to: Role | 'none', uid: string): never {
    if (target === 'owner' || to === 'owner') throw errors.forbidden('The owner cannot be demoted or removed, and ownership is not a grant');
    throw errors.forbidden(
      `Your role (${actor}) cannot manage ${uid}'s role${to === 'none' ? '' : ` as ${to}`}: nobody grants or removes a role above their own`,
    );
  }

  const currentRole = async (machine: MachineRecord, uid: string): Promise<Role | 'none'> =>
    uid === machine.owner_uid ? 'owner' : ((await machineRecords.grantOf(machine.slug, uid))?.role ?? 'none');

  async function audit(machine: MachineRecord, caller: Caller, type: string, payload: Record<string, unknown>): Promise<void> {
    await chain.append(machine, { type, actor_uid: caller.uid, payload_digest: digestOf(payload), payload });
  }

  return {
    async list(slug, caller) {
      const { machine } = await machines.readable(slug, caller);
      const grants = await machineRecords.grantsOn(slug);
      return { owner_uid: machine.owner_uid, admins: grants.map(view) };
    },

    async grant(slug, caller, uid, role) {
      const { machine, role: actor } = await actorOn(slug, caller);
      const target = await currentRole(machine, uid);
      if (!canManageRole(actor, target, role)) refuse(actor, target, role, uid);
      if (isDeveloperUid(uid)) throw errors.validation(`${uid} is an API key; its scope sets its role, it cannot be granted one`);
      if (!(await identity.isUser(uid))) throw errors.notFound(`No identity "${uid}" on this node`, { uid });
      const grant: RoleGrant = { slug, uid, role, granted_by: caller.uid!, granted_at: new Date(clock.now()).toISOString() };
      let existed = false;
      await machineRecords.updateGrant(slug, uid, (current) => {
        existed = current !== undefined;
        return existed ? undefined : grant;
      });
      if (existed) throw errors.conflict(`${uid} already has a role on "${slug}"; change it with PATCH /api/chain/${slug}/admins/${uid}`, { uid });
      await audit(machine, caller, 'admin.granted', { uid, role });
      return view(grant);
    },

    async change(slug, caller, uid, role) {
      const { machine, role: actor } = await actorOn(slug, caller);
      const target = await currentRole(machine, uid);
      if (target === 'none') throw errors.notFound(`${uid} has no role on "${slug}"; grant one with POST /api/chain/${slug}/admins`, { uid });
      if (!canManageRole(actor, target, role)) refuse(actor, target, role, uid);
      const updated = await machineRecords.updateGrant(slug, uid, (current) =>
        current ? { ...current, role, granted_by: caller.uid!, granted_at: new Date(clock.now()).toISOString() } : undefined,
      );
      if (!updated) throw errors.notFound(`${uid} has no role on "${slug}"`, { uid });
      if (target !== role) await audit(machine, caller, 'admin.role_changed', { uid, from: target, to: role });
      return view(updated);
    },

    async revoke(slug, caller, uid) {
      const { machine, role: actor } = await actorOn(slug, caller);
      const target = await currentRole(machine, uid);
      if (target === 'none') return false;
      if (!canManageRole(actor, target, 'none')) refuse(actor, target, 'none', uid);
      const removed = await machineRecords.deleteGrant(slug, uid);
      if (removed) await audit(machine, caller, 'admin.revoked', { uid, role: target });
      return removed;
    },
  };
}
