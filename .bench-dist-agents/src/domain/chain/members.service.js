import { errors } from '../../errors.js';
import { digestOf } from '../../lib/hash.js';
import { isDeveloperUid } from '../identity/identity.service.js';
import { canManageRole } from '../identity/roles.js';
import { GRANTS, grantId } from './machine.js';
const view = (g) => ({ uid: g.uid, role: g.role, granted_by: g.granted_by ?? null, granted_at: g.granted_at });
export function createMembersService(deps) {
    const { store, clock, chain, machines, identity } = deps;
    /** The machine and the caller's role on it (the pipeline has already checked it is at least admin). */
    const actorOn = (slug, caller) => machines.readable(slug, caller);
    function refuse(actor, target, to, uid) {
        if (target === 'owner' || to === 'owner')
            throw errors.forbidden('The owner cannot be demoted or removed, and ownership is not a grant');
        throw errors.forbidden(`Your role (${actor}) cannot manage ${uid}'s role${to === 'none' ? '' : ` as ${to}`}: nobody grants or removes a role above their own`);
    }
    const currentRole = async (machine, uid) => uid === machine.owner_uid ? 'owner' : ((await store.docs.get(GRANTS, grantId(machine.slug, uid)))?.role ?? 'none');
    async function audit(machine, caller, type, payload) {
        await chain.append(machine, { type, actor_uid: caller.uid, payload_digest: digestOf(payload), payload });
    }
    return {
        async list(slug, caller) {
            const { machine } = await machines.readable(slug, caller);
            const grants = await store.docs.list(GRANTS, (g) => g.slug === slug);
            return { owner_uid: machine.owner_uid, admins: grants.map(view) };
        },
        async grant(slug, caller, uid, role) {
            const { machine, role: actor } = await actorOn(slug, caller);
            const target = await currentRole(machine, uid);
            if (!canManageRole(actor, target, role))
                refuse(actor, target, role, uid);
            if (isDeveloperUid(uid))
                throw errors.validation(`${uid} is an API key; its scope sets its role, it cannot be granted one`);
            if (!(await identity.isUser(uid)))
                throw errors.notFound(`No identity "${uid}" on this node`, { uid });
            const grant = { slug, uid, role, granted_by: caller.uid, granted_at: new Date(clock.now()).toISOString() };
            let existed = false;
            await store.docs.update(GRANTS, grantId(slug, uid), (current) => {
                existed = current !== undefined;
                return existed ? undefined : grant;
            });
            if (existed)
                throw errors.conflict(`${uid} already has a role on "${slug}"; change it with PATCH /api/chain/${slug}/admins/${uid}`, { uid });
            await audit(machine, caller, 'admin.granted', { uid, role });
            return view(grant);
        },
        async change(slug, caller, uid, role) {
            const { machine, role: actor } = await actorOn(slug, caller);
            const target = await currentRole(machine, uid);
            if (target === 'none')
                throw errors.notFound(`${uid} has no role on "${slug}"; grant one with POST /api/chain/${slug}/admins`, { uid });
            if (!canManageRole(actor, target, role))
                refuse(actor, target, role, uid);
            const updated = await store.docs.update(GRANTS, grantId(slug, uid), (current) => current ? { ...current, role, granted_by: caller.uid, granted_at: new Date(clock.now()).toISOString() } : undefined);
            if (!updated)
                throw errors.notFound(`${uid} has no role on "${slug}"`, { uid });
            if (target !== role)
                await audit(machine, caller, 'admin.role_changed', { uid, from: target, to: role });
            return view(updated);
        },
        async revoke(slug, caller, uid) {
            const { machine, role: actor } = await actorOn(slug, caller);
            const target = await currentRole(machine, uid);
            if (target === 'none')
                return false;
            if (!canManageRole(actor, target, 'none'))
                refuse(actor, target, 'none', uid);
            const removed = await store.docs.delete(GRANTS, grantId(slug, uid));
            if (removed)
                await audit(machine, caller, 'admin.revoked', { uid, role: target });
            return removed;
        },
    };
}
//# sourceMappingURL=members.service.js.map