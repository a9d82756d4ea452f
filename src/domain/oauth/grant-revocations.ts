import { randomUUID } from 'node:crypto';
import type { EventBus } from '../events.js';
import type { PubSub } from '../../storage/port.js';

/** The store channel a revoked grant is told on to the other processes sharing the store. */
export const GRANT_REVOKED_CHANNEL = 'oauth.grants';

/**
 * A revoked OAuth grant reaches every process's bus (`oauth.grantRevoked`), so a stream opened with one
 * of its tokens on another process ends at once, as a key revocation does through its `api_key.*` row.
 * A message lost in an outage is covered by the delivery guard's re-check of every flow on resume.
 */
export function createGrantRevocations(pubsub: PubSub, bus: EventBus): { revoked(grantId: string): void } {
  const origin = randomUUID();
  pubsub.subscribe(GRANT_REVOKED_CHANNEL, (message) => {
    const { o, g } = (message ?? {}) as { o?: unknown; g?: unknown };
    if (o !== origin && typeof g === 'string') bus.emit('oauth.grantRevoked', { grantId: g });
  });
  return {
    revoked(grantId) {
      bus.emit('oauth.grantRevoked', { grantId });
      pubsub.publish(GRANT_REVOKED_CHANNEL, { o: origin, g: grantId });
    },
  };
}
