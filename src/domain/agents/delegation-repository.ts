import type { LogRow, RowInput, Store } from '../../storage/port.js';

/** What a delegation lets the machine's owner do with the agent's store: read it, or read and change it. */
export type DelegatedAccess = 'read' | 'write';

/**
 * A grant an agent made with its own credentials: the owner of `slug` (the uid that owned it when the
 * grant was made) may act for the agent on calls naming `slug`.
 */
export interface Delegation {
  slug: string;
  grantee_uid: string;
  access: DelegatedAccess;
  created_at: string;
}

/** One change of an agent's delegations, kept in its audit log. */
export interface DelegationEvent {
  type: 'delegation.granted' | 'delegation.revoked';
  slug: string;
  grantee_uid: string;
  access: DelegatedAccess;
  at: string;
}

/** An agent's delegations, one document per agent (bounded by `MAX_DELEGATIONS`), keyed by slug. */
export interface DelegationsRecord {
  uid: string;
  grants: Record<string, Delegation>;
}

/** A row of an agent's delegation audit log. */
export interface DelegationRow extends LogRow, Omit<DelegationEvent, 'type'> {
  type: DelegationEvent['type'];
  actor_uid: string;
}

const AGENT_DELEGATIONS = 'agent-delegations';
const auditStream = (uid: string) => `agent-delegations/${uid}`;

/** Agents' delegations and their audit logs: the only module that names them. */
export interface DelegationRepository {
  byUid(uid: string): Promise<DelegationsRecord | undefined>;
  /** Read-modify-write of the agent's document; returns what is stored afterwards. */
  update(uid: string, fn: (current: DelegationsRecord | undefined) => DelegationsRecord | undefined): Promise<DelegationsRecord | undefined>;
  /** Appends one row to the agent's audit log; resolves once it is durable. */
  appendEvent(uid: string, row: RowInput<DelegationRow>): Promise<void>;
  /** The newest `limit` rows of the agent's audit log, newest first. */
  recentEvents(uid: string, limit: number): Promise<DelegationRow[]>;
}

export function createDelegationRepository(store: Store): DelegationRepository {
  return {
    byUid: (uid) => store.docs.get<DelegationsRecord>(AGENT_DELEGATIONS, uid),
    update: (uid, fn) => store.docs.update<DelegationsRecord>(AGENT_DELEGATIONS, uid, fn),
    async appendEvent(uid, row) {
      await store.logs.append<DelegationRow>(auditStream(uid), () => row);
    },
    recentEvents: (uid, limit) => store.logs.read<DelegationRow>(auditStream(uid), { reverse: true, limit }),
  };
}
