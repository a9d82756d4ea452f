import type { Caller } from '../identity/caller.js';
import type { MachinesService } from '../chain/machines.service.js';
import { isDeveloperUid } from '../identity/identity.service.js';
import type { ContractRecord, ListenerPrincipal } from './contract.types.js';

/**
 * What a listening contract may receive of one event, decided at delivery (authorization follows the
 * data): `none`, the event is not delivered (its principal can no longer read the source machine: it
 * went private, the member was removed); `event`, the event arrives without its payload; `payload`, in
 * full. A payload reaches a contract only when its principal could read it directly: an encrypted chain
 * row's payload only by the source machine's owner (as `audit/decrypt`), a contract event's payload by
 * any member (as `GET /events`).
 */
export type Reach = 'none' | 'event' | 'payload';

/** Where an event comes from: a row on the machine's chain (payload encrypted at rest) or a contract's emit. */
export type EventOrigin = 'chain' | 'contract';

/** Marks the input of an event delivered without its payload, so a failed condition explains itself. */
export const WITHHELD = { payload_withheld: true } as const;

/**
 * The principal a caller's contract listens as: its identity and key limits, without its share token
 * (a share token authorizes one request; it is not kept, so it cannot authorize a lasting listener).
 */
export function principalOf(caller: Caller): ListenerPrincipal {
  return {
    uid: caller.uid!,
    ...(caller.machine !== undefined ? { machine: caller.machine } : {}),
    ...(caller.scope !== undefined ? { scope: caller.scope } : {}),
  };
}

/**
 * A contract's principal. A contract written before principals were kept listens as its creator; a
 * developer key (bound to the contract's machine, at least operator to create it) as such a key.
 */
export function listenerOf(record: ContractRecord): ListenerPrincipal {
  if (record.listener) return record.listener;
  return isDeveloperUid(record.created_by) ? { uid: record.created_by, machine: record.slug, scope: 'write' } : { uid: record.created_by };
}

/** The principal as a caller of the machines service (so the role rules stay in one place). */
export function callerOf(principal: ListenerPrincipal): Caller {
  return { credential: 'user-key', ...principal };
}

export const principalKey = (p: ListenerPrincipal): string => `${p.uid}|${p.machine ?? ''}|${p.scope ?? ''}`;

/** Reads the principal's role on the source machine now: no cache, so a revocation counts from the next event. */
export function createListenerAccess(machines: MachinesService) {
  return async function reach(principal: ListenerPrincipal, source: string, origin: EventOrigin): Promise<Reach> {
    const role = await machines.roleOf(source, callerOf(principal));
    if (role === undefined) return 'none';
    if (origin === 'chain') return role === 'owner' ? 'payload' : 'event';
    return role === 'none' ? 'event' : 'payload';
  };
}
