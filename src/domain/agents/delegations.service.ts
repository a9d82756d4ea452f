import { CoreError, errors } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import type { MachineRecord } from '../chain/machine.js';
import { type DelegatedAccess, type Delegation, type DelegationEvent, type DelegationRepository } from './delegation-repository.js';

export type { DelegatedAccess, Delegation, DelegationEvent } from './delegation-repository.js';

/** Enough for an agent working on many machines; bounds the one document every delegated call reads. */
export const MAX_DELEGATIONS = 100;

export interface DelegationsService {
  /** Creates or replaces the agent's delegation to the current owner of `machine`. */
  grant(uid: string, machine: MachineRecord, access: DelegatedAccess): Promise<{ delegation: Delegation; changed: boolean }>;
  /** Removes it; the next call of the grantee is refused. */
  revoke(uid: string, slug: string): Promise<{ changed: boolean }>;
  list(uid: string): Promise<Delegation[]>;
  /** Grants and revocations, newest first. */
  history(uid: string, limit: number): Promise<DelegationEvent[]>;
  /** The delegation in force for (agent, machine), read afresh on every call so a revocation binds at once. */
  find(uid: string, slug: string): Promise<Delegation | undefined>;
}

export function createDelegationsService(deps: { delegationRecords: DelegationRepository; clock: Clock }): DelegationsService {
  const { delegationRecords, clock } = deps;

  async function audit(uid: string, type: DelegationEvent['type'], d: Delegation): Promise<void> {
    const nowMs = clock.now();
    await delegationRecords.appendEvent(uid, {
      type,
      tick: clock.tick(),
      slug: d.slug,
      grantee_uid: d.grantee_uid,
      access: d.access,
      actor_uid: uid,
      at: new Date(nowMs).toISOString(),
    });
  }

  return {
    async grant(uid, machine, access) {
      if (machine.owner_uid === uid) {
        throw errors.validation(`You own "${machine.slug}": you need no delegation to act for yourself`, {
          issues: [{ path: 'slug', message: 'names a machine the agent owns', code: 'custom' }],
        });
      }
      const delegation: Delegation = { slug: machine.slug, grantee_uid: machine.owner_uid, access, created_at: new Date(clock.now()).toISOString() };
      let changed = false;
      const stored = await delegationRecords.update(uid, (current) => {
        changed = false;
        const grants = current?.grants ?? {};
        const before = grants[machine.slug];
        if (before && before.access === access && before.grantee_uid === delegation.grantee_uid) return undefined;
        if (!before && Object.keys(grants).length >= MAX_DELEGATIONS) {
          throw new CoreError('QUOTA_EXCEEDED', `An agent holds at most ${MAX_DELEGATIONS} delegations; revoke one first`, { limit: MAX_DELEGATIONS });
        }
        changed = true;
        return { uid, grants: { ...grants, [machine.slug]: delegation } };
      });
      const result = stored?.grants[machine.slug] ?? delegation;
      if (changed) await audit(uid, 'delegation.granted', result);
      return { delegation: result, changed };
    },

    async revoke(uid, slug) {
      let removed: Delegation | undefined;
      await delegationRecords.update(uid, (current) => {
        removed = current?.grants[slug];
        if (!current || !removed) return undefined;
        const { [slug]: _gone, ...rest } = current.grants;
        return { uid, grants: rest };
      });
      if (removed) await audit(uid, 'delegation.revoked', removed);
      return { changed: removed !== undefined };
    },

    async list(uid) {
      const doc = await delegationRecords.byUid(uid);
      return Object.values(doc?.grants ?? {}).sort((a, b) => a.slug.localeCompare(b.slug));
    },

    async history(uid, limit) {
      const rows = await delegationRecords.recentEvents(uid, limit);
      return rows.map(({ type, slug, grantee_uid, access, at }) => ({ type, slug, grantee_uid, access, at }));
    },

    async find(uid, slug) {
      return (await delegationRecords.byUid(uid))?.grants[slug];
    },
  };
}
