import { randomUUID } from 'node:crypto';
import type { EventBus } from '../../lib/event-bus.js';
import type { Json, Store } from '../../storage/port.js';
import { createChainLogRepository } from './chain-log-repository.js';

/** The store channel chain appends are announced on. */
export const APPENDED_CHANNEL = 'chain.appended';
/** Most announcements per message (PostgreSQL caps a NOTIFY payload under 8,000 bytes). */
const MAX_PER_MESSAGE = 40;
/** Most rows read back for one announcement: a subscriber further behind catches up from the log itself. */
const MAX_CATCH_UP = 1000;
/** Machines whose last relayed seq is remembered. */
const MAX_TRACKED = 10_000;

type Announcement = [slug: string, seq: number, isPublic: boolean];

export interface AppendRelay {
  /** Stops relaying, then waits for rows being read back, so nothing reads the store after it resolves. */
  stop(): Promise<void>;
}

/**
 * Carries `audit.appended` between the processes sharing a store, so an SSE subscriber on one process
 * sees rows appended through another. Appends of one event-loop turn become one message (per machine:
 * its last seq and visibility); a receiving process reads the announced rows back from the log and
 * emits them on its own bus flagged `remote` (event routing ignores those: the appending process did it).
 * Messages are best effort; stream relays fill any gap by seq from the log.
 */
export function createAppendRelay(deps: { store: Store; bus: EventBus; onError: (err: unknown) => void }): AppendRelay {
  const { store, bus } = deps;
  const chainLog = createChainLogRepository(store);
  const origin = randomUUID();
  let pending = new Map<string, Announcement>();
  let flushing: NodeJS.Immediate | undefined;
  const lastSeen = new Map<string, number>();
  const queues = new Map<string, Promise<void>>();

  function flush(): void {
    flushing = undefined;
    const batch = [...pending.values()];
    pending = new Map();
    for (let i = 0; i < batch.length; i += MAX_PER_MESSAGE) {
      store.pubsub.publish(APPENDED_CHANNEL, { o: origin, a: batch.slice(i, i + MAX_PER_MESSAGE) as unknown as Json });
    }
  }

  const offLocal = bus.on('audit.appended', ({ slug, isPublic, row, remote }) => {
    if (remote) return;
    pending.set(slug, [slug, Number(row['seq']), isPublic]);
    flushing ??= setImmediate(flush);
  });

  async function relay([slug, seq, isPublic]: Announcement): Promise<void> {
    const seen = lastSeen.get(slug);
    if (seen !== undefined && seen >= seq) return;
    const from = Math.max(seen === undefined ? seq : seen + 1, seq - MAX_CATCH_UP + 1);
    const rows = await chainLog.read(slug, { fromSeq: from, toSeq: seq });
    lastSeen.delete(slug);
    lastSeen.set(slug, seq);
    if (lastSeen.size > MAX_TRACKED) lastSeen.delete(lastSeen.keys().next().value!);
    for (const row of rows) bus.emit('audit.appended', { slug, isPublic, row: row as unknown as Record<string, unknown>, remote: true });
  }

  const offRemote = store.pubsub.subscribe(APPENDED_CHANNEL, (message) => {
    const { o, a } = (message ?? {}) as { o?: unknown; a?: unknown };
    if (o === origin || !Array.isArray(a)) return;
    for (const item of a as Announcement[]) {
      const slug = item[0];
      // In order per machine: rows reach subscribers in seq order.
      const next = (queues.get(slug) ?? Promise.resolve()).then(() => relay(item)).catch(deps.onError);
      queues.set(slug, next);
      void next.then(() => {
        if (queues.get(slug) === next) queues.delete(slug);
      });
    }
  });

  return {
    async stop() {
      offLocal();
      offRemote();
      if (flushing !== undefined) clearImmediate(flushing);
      flushing = undefined;
      await Promise.allSettled([...queues.values()]);
    },
  };
}
