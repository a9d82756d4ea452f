import { randomUUID } from 'node:crypto';
import { inCommitScope } from '../../lib/commit-scope.js';
import type { Json, PubSub } from '../../storage/port.js';

/** The channel processes sharing a store announce contract changes and scheduled fires on. */
export const SCHEDULE_CHANNEL = 'contracts.schedule';
/** Entries per message: PostgreSQL refuses NOTIFY payloads of 8000 bytes or more. */
const MAX_PER_MESSAGE = 100;

export interface ScheduleRelayDeps {
  pubsub: PubSub;
  /** False on a store only this process opens: nothing is sent or heard. */
  enabled: boolean;
  /** Another process fired a contract and says when it is next due. */
  onFired(id: string, due: number): void;
  /**
   * The messaging connection came back after a loss: announcements sent meanwhile were never heard, so
   * the caller re-reads every contract at once rather than at its next periodic full re-read.
   */
  onResume?(): void;
}

/**
 * Tells the other processes sharing a store what this one changed, so their schedulers need not re-read
 * every contract each tick: ids of contracts created, edited or controlled here (they re-read those), and
 * the next due tick of each scheduled fire done here (they skip ahead instead of claiming a fire that is
 * done). Messages are batched per turn of the event loop. Best effort, like the pubsub under it: a lost
 * message costs a wasted claim or waits for the periodic full re-read, never a double or lost fire (the
 * claim and the durable watermark decide that).
 */
export function createScheduleRelay(deps: ScheduleRelayDeps) {
  const origin = randomUUID();
  const heard = new Set<string>();
  const outChanged = new Set<string>();
  const outFired = new Map<string, number | null>();
  let flushing = false;

  if (deps.enabled) {
    deps.pubsub.subscribe(SCHEDULE_CHANNEL, (message) => {
      const m = message as { o?: string; c?: string[]; f?: Array<[string, number | null]> } | null;
      if (!m || m.o === origin) return;
      for (const id of m.c ?? []) heard.add(id);
      for (const [id, due] of m.f ?? []) {
        if (due === null) heard.add(id);
        else deps.onFired(id, due);
      }
    });
    if (deps.onResume) deps.pubsub.onResume(deps.onResume);
  }

  function flush(): void {
    flushing = false;
    const changed = [...outChanged];
    const fired = [...outFired];
    outChanged.clear();
    outFired.clear();
    for (let i = 0; i < changed.length; i += MAX_PER_MESSAGE) deps.pubsub.publish(SCHEDULE_CHANNEL, { o: origin, c: changed.slice(i, i + MAX_PER_MESSAGE) });
    for (let i = 0; i < fired.length; i += MAX_PER_MESSAGE)
      deps.pubsub.publish(SCHEDULE_CHANNEL, { o: origin, f: fired.slice(i, i + MAX_PER_MESSAGE) as Json });
  }
  function soon(): void {
    if (flushing) return;
    flushing = true;
    setImmediate(flush);
  }

  return {
    /** Announces that a contract was created, edited or controlled here. */
    changed(id: string): void {
      if (!deps.enabled) return;
      outChanged.add(id);
      soon();
    },
    /** Announces a scheduled fire done here and the contract's next due tick (undefined: none). */
    fired(id: string, due: number | undefined): void {
      if (!deps.enabled) return;
      // Inside a lock's transaction the message is sent with its COMMIT: now, it costs no round trip of its own.
      if (inCommitScope()) return deps.pubsub.publish(SCHEDULE_CHANNEL, { o: origin, f: [[id, due ?? null]] });
      outFired.set(id, due ?? null);
      soon();
    },
    /** Ids other processes announced as changed since the last call. */
    takeChanged(): string[] {
      const ids = [...heard];
      heard.clear();
      return ids;
    },
  };
}

export type ScheduleRelay = ReturnType<typeof createScheduleRelay>;
