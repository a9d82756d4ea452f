import { randomUUID } from 'node:crypto';
import { vi } from 'vitest';
import type { PubSub } from '../../src/storage/port.js';

/** How long a wait on another process (a fire, a lock handover, a message) may take before it counts as a hang. */
export const HANG_MS = 120_000;

/** `vi.waitFor` with the hang-catching limit: retries `check` until it stops throwing. */
export function eventually<T>(check: () => T | Promise<T>, interval = 50): Promise<T> {
  return vi.waitFor(check, { timeout: HANG_MS, interval });
}

/**
 * Resolves once `to` hears a channel it subscribes to now, published through `from`. A process's
 * LISTENs run in order on its one session connection, so from then on it also hears every channel it
 * subscribed to before: a test publishes after this instead of sleeping and hoping the LISTEN is done.
 */
export async function listeningNow(from: PubSub, to: PubSub): Promise<void> {
  const channel = `probe-${randomUUID()}`;
  let heard = false;
  const off = to.subscribe(channel, () => void (heard = true));
  try {
    await eventually(() => {
      if (heard) return;
      from.publish(channel, { probe: true });
      throw new Error(`${channel} not heard yet`);
    }, 100);
  } finally {
    off();
  }
}
