import { errors } from '../../errors.js';
import type { Caller } from '../identity/caller.js';
import type { MachineRecord } from '../chain/machine.js';
import type { MachinesService } from '../chain/machines.service.js';
import type { DelegationsService } from './delegations.service.js';

/**
 * What an operation on an agent's store needs: `read` or `write` may be done by the agent or under a
 * delegation of that kind; `self` (managing the delegations themselves) only by the agent.
 */
export type AgentStoreAccess = 'read' | 'write' | 'self';

/** Who is acting for an agent, as the pipeline established it before the handler runs. */
export interface AgentActor {
  /** The agent whose store the call uses. */
  uid: string;
  /** `agent`: the agent with its own user key or session; `delegate`: the owner of `machine` under the agent's delegation. */
  as: 'agent' | 'delegate';
  /** The machine named by `slug`, when one was named (never for `self`). */
  machine: MachineRecord | null;
  /** Who is calling, for audit rows. */
  actor_uid: string;
}

export interface AgentAccess {
  /**
   * The one check every operation on an agent's store goes through (the pipeline runs it for each
   * operation declaring `agentStore`). The agent is `target.uid`, the caller's own uid when absent.
   * Allowed: the agent itself with its user key or session (a machine-bound key speaks for its machine,
   * not for the agent); for `read`/`write`, also the owner of the machine named by `target.slug` when
   * the agent delegated that machine's owner this access, looked up afresh on each call so a
   * revocation binds the next call. A role on a machine is never a grant to act as its members.
   * No key: 401; a private machine the caller cannot read: 404; anything else refused: 403.
   */
  authorize(caller: Caller, need: AgentStoreAccess, target: { uid?: unknown; slug?: unknown }): Promise<AgentActor>;
}

export function createAgentAccess(deps: { machines: MachinesService; delegations: DelegationsService }): AgentAccess {
  const { machines, delegations } = deps;

  /** Whether `uid` owns or holds a role on the machine (what "works on it" means here). */
  async function worksOn(uid: string, machine: MachineRecord): Promise<boolean> {
    if (machine.owner_uid === uid) return true;
    const role = await machines.roleOf(machine.slug, { uid, credential: 'user-key' });
    return role !== undefined && role !== 'none';
  }

  return {
    async authorize(caller, need, target) {
      if (caller.uid === null) throw errors.unauthenticated(caller);
      const uid = typeof target.uid === 'string' ? target.uid : caller.uid;
      const slug = typeof target.slug === 'string' ? target.slug : undefined;
      const isAgent = caller.uid === uid && caller.machine === undefined;

      if (isAgent) {
        if (slug === undefined || need === 'self') return { uid, as: 'agent', machine: null, actor_uid: caller.uid };
        const { machine } = await machines.readable(slug, caller);
        if (!(await worksOn(uid, machine))) {
          throw errors.forbidden(`You do not work on "${slug}": you neither own it nor hold a role on it`);
        }
        return { uid, as: 'agent', machine, actor_uid: caller.uid };
      }

      const machineKey = caller.uid === uid ? ' (a machine key speaks for its machine, not for the agent)' : '';
      if (need === 'self') {
        throw errors.forbidden(`Only agent ${uid} itself, with its own user key or session, may manage its delegations${machineKey}`);
      }
      if (slug === undefined) {
        throw errors.forbidden(
          `Only agent ${uid} itself may use its store${machineKey}; the owner of a machine may act for it only under a delegation the agent made for that machine (core_agent_state \`delegate\`), naming the machine with \`slug\``,
        );
      }
      const { machine, role } = await machines.readable(slug, caller);
      const grant = await delegations.find(uid, slug);
      if (role !== 'owner' || grant === undefined || grant.grantee_uid !== caller.uid) {
        throw errors.forbidden(
          `Agent ${uid} has not delegated its store to you for "${slug}": a role on a machine is not a grant to act for its members; only the agent itself, or the owner of a machine it delegated to, may do this`,
        );
      }
      if (need === 'write' && grant.access !== 'write') {
        throw errors.forbidden(`Agent ${uid} delegated only read access for "${slug}"; this operation changes its store`);
      }
      return { uid, as: 'delegate', machine, actor_uid: caller.uid };
    },
  };
}
