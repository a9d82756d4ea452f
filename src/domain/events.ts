import { createBus, type Bus } from '../lib/event-bus.js';
import type { ChainRow } from './chain/hash-chain.js';

/** Events published inside the process; names follow `noun.verbPast`. */
export interface BusEvents {
  /** `remote`: appended by another process sharing the store (relayed; its own process routes its events). */
  'audit.appended': { slug: string; isPublic: boolean; row: ChainRow; remote?: boolean };
  /** An OAuth grant was revoked (RFC 7009, or a replayed code or refresh token): open flows of its tokens end. */
  'oauth.grantRevoked': { grantId: string };
}

/** The node's bus: every publisher and listener agrees on each event's payload by its name. */
export type EventBus = Bus<BusEvents>;

export function createEventBus(): EventBus {
  return createBus<BusEvents>();
}
