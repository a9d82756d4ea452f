import { errors } from '../../errors.js';
import type { Caller } from '../../registry/types.js';
import type { MachineRecord } from '../chain/machine.js';
import type { MachinesService } from '../chain/machines.service.js';

/** How the caller is entitled to act for an agent. */
export interface AgentActor {
  uid: string;
  /** `agent`: the agent with its own key; `owner`: the owner of `machine`, acting on the agent's behalf. */
  as: 'agent' | 'owner';
  /** The machine named by `slug`, when one was named. */
  machine: MachineRecord | null;
  /** Who is calling, for audit rows. */
  actor_uid: string;
}

export interface AgentAccess {
  /**
   * Checks that the caller may act for agent `uid`: the agent itself (its own user key or session), or
   * the owner of the machine named by `slug` when the agent works on that machine (owns it or holds a
   * role on it). A missing key is 401; a private machine the caller cannot read is 404; anything else
   * is 403. With `machineRequired`, `slug` must be given and the agent must work on that machine.
   */
  actFor(caller: Caller, uid: string, slug: string | undefined, options?: { machineRequired?: boolean }): Promise<AgentActor>;
}

export function createAgentAccess(deps: { machines: MachinesService }): AgentAccess {
  const { machines } = deps;

  /** Whether `uid` owns or holds a role on the machine (what "works on it" means here). */
  async function worksOn(uid: string, machine: MachineRecord): Promise<boolean> {
    if (machine.owner_uid === uid) return true;
    const role = await machines.roleOf(machine.slug, { uid, credential: 'user-key' });
    return role !== undefined && role !== 'none';
  }

  return {
    async actFor(caller, uid, slug, options = {}) {
      if (caller.uid === null) throw errors.unauthenticated(caller);
      // A machine-bound key speaks for its machine, not for the agent's own stores.
      const isAgent = caller.uid === uid && caller.machine === undefined;
      if (slug === undefined) {
        if (options.machineRequired) throw errors.validation('Name the machine with `slug`', { issues: [{ path: 'slug', message: 'required', code: 'invalid_type' }] });
        if (isAgent) return { uid, as: 'agent', machine: null, actor_uid: caller.uid };
        throw errors.forbidden(
          `Only agent ${uid} itself may do this without a machine; the owner of a machine the agent works on may act for it by passing that machine's \`slug\``,
        );
      }
      const { machine, role } = await machines.readable(slug, caller);
      if (!isAgent && role !== 'owner') {
        throw errors.forbidden(`Only agent ${uid} itself or the owner of "${slug}" may do this; you are ${role === 'none' ? 'not a member' : `${role}`} of "${slug}"`);
      }
      if (!(await worksOn(uid, machine))) {
        throw errors.forbidden(`Agent ${uid} does not work on "${slug}": it neither owns it nor holds a role on it`);
      }
      return { uid, as: isAgent ? 'agent' : 'owner', machine, actor_uid: caller.uid };
    },
  };
}
