import type { EventBus } from '../events.js';
import type { SseEvent, SseSource } from '../../lib/handler-results.js';
import type { ChainService } from './chain.service.js';
import type { ChainRow } from './hash-chain.js';
import type { MachineRecord } from './machine.js';
import { createOrderedRelay } from './ordered-relay.js';
import type { StreamInterest } from './stream-interest.js';
import type { ChainLogRepository } from './chain-log-repository.js';
import type { MachineRepository } from './machine-repository.js';

/** At most this many missed rows are replayed on resume; older ones are announced by a `replay.skipped` event. */
export const MAX_REPLAY = 10_000;
/** Public rows kept in memory for resuming the aggregate feed. */
export const AGGREGATE_BACKLOG = 4096;

export const ROW_EVENT = 'audit.appended';
export const SKIPPED_EVENT = 'replay.skipped';

export interface StreamsService {
  /**
   * A machine's rows as they are appended. With a last event id (the row seq, or `<slug>:<seq>`) the rows
   * after it are replayed from the log first; `publicOnly` stops delivery if the machine turns private.
   */
  explore(machine: MachineRecord, opts: { publicOnly: boolean }): SseSource;
  /** Rows of every public machine, ids `<slug>:<seq>`; resume covers the last `AGGREGATE_BACKLOG` public rows. */
  aggregate(): SseSource;
  stop(): void;
}

interface Entry {
  n: number;
  slug: string;
  row: ChainRow;
}

export function createStreamsService(deps: {
  chainLog: ChainLogRepository;
  machineRecords: MachineRepository;
  bus: EventBus;
  chain: ChainService;
  onError?: (err: unknown) => void;
  /** Told which machines the open streams deliver, so rows missed while messaging was down are caught up. */
  interest?: StreamInterest;
}): StreamsService {
  const { chainLog, machineRecords, bus, chain } = deps;
  const backlog: Entry[] = [];
  let counter = 0;
  const listeners = new Set<(entry: Entry) => void>();

  // Private rows never enter the backlog nor reach an aggregate listener.
  const unsubscribe = bus.on('audit.appended', ({ slug, isPublic, row }) => {
    if (!isPublic) return;
    const entry: Entry = { n: ++counter, slug, row };
    backlog.push(entry);
    if (backlog.length > AGGREGATE_BACKLOG * 2) backlog.splice(0, backlog.length - AGGREGATE_BACKLOG);
    for (const listener of listeners) listener(entry);
  });

  const isPublicNow = async (slug: string) => (await machineRecords.get(slug))?.is_public === true;

  function explore(machine: MachineRecord, opts: { publicOnly: boolean }): SseSource {
    const { slug } = machine;
    return {
      open(push, lastEventId, end) {
        const resumeAfter = seqOfEventId(lastEventId, slug);
        let closed = false;
        let release: (() => void) | undefined;
        // The machine turned private under a public-only stream: delivery stops and the stream ends, so
        // its client reconnects and is refused (closing the relay alone left the response open, silent).
        const turnedPrivate = () => {
          relay.close();
          if (closed) return;
          closed = true;
          end?.();
        };
        const relay = createOrderedRelay<ChainRow>({
          seqOf: (row) => row.seq,
          fetch: (from, to, limit) => chainLog.read(slug, { fromSeq: from, toSeq: to, limit }),
          start: chain.head(slug).then((head) => {
            const headSeq = head?.seq ?? -1;
            // Rows after the head are this stream's live ones: from here on they are caught up after an outage.
            if (!closed) release = deps.interest?.watch(slug, headSeq);
            let after = resumeAfter === undefined ? headSeq : Math.min(resumeAfter, headSeq);
            if (headSeq - after > MAX_REPLAY) {
              push({
                event: SKIPPED_EVENT,
                data: { slug, from_seq: after + 1, to_seq: headSeq - MAX_REPLAY, hint: `read them with GET /api/chain/${slug}/explore` },
              });
              after = headSeq - MAX_REPLAY;
            }
            return { after, target: headSeq };
          }),
          push: (row) => push(rowEvent(row)),
          ...(opts.publicOnly
            ? {
                allowed: async () => {
                  if (await isPublicNow(slug)) return true;
                  turnedPrivate();
                  return false;
                },
              }
            : {}),
          ...(deps.onError ? { onError: deps.onError } : {}),
          ...(end ? { end } : {}),
        });
        const off = bus.on('audit.appended', (event) => {
          if (event.slug !== slug) return;
          if (opts.publicOnly && !event.isPublic) return turnedPrivate();
          relay.offer(event.row);
        });
        return () => {
          closed = true;
          off();
          relay.close();
          release?.();
        };
      },
    };
  }

  function aggregate(): SseSource {
    return {
      open(push, lastEventId) {
        let closed = false;
        const startN = counter;
        const from = lastEventId === undefined ? -1 : backlog.findIndex((e) => `${e.slug}:${e.row.seq}` === lastEventId);
        const missed = from === -1 ? [] : backlog.slice(from + 1).filter((e) => e.n <= startN);
        let buffered: Entry[] | undefined = missed.length > 0 ? [] : undefined;
        const listener = (entry: Entry) => {
          if (closed) return;
          if (buffered) buffered.push(entry);
          else push(aggregateEvent(entry));
        };
        listeners.add(listener);
        const release = deps.interest?.watchAll();
        if (buffered) {
          void (async () => {
            // A machine may have turned private since its rows were buffered: check each once.
            const visible = new Map<string, boolean>();
            for (const e of missed) {
              if (!visible.has(e.slug)) visible.set(e.slug, await isPublicNow(e.slug));
            }
            if (closed) return;
            for (const e of missed) if (visible.get(e.slug)) push(aggregateEvent(e));
            const live = buffered ?? [];
            buffered = undefined;
            for (const e of live) if (!closed) push(aggregateEvent(e));
          })().catch((err: unknown) => deps.onError?.(err));
        }
        return () => {
          closed = true;
          listeners.delete(listener);
          release?.();
        };
      },
    };
  }

  return { explore, aggregate, stop: unsubscribe };
}

function rowEvent(row: ChainRow): SseEvent {
  return { id: String(row.seq), event: ROW_EVENT, data: row };
}

function aggregateEvent(entry: Entry): SseEvent {
  return { id: `${entry.slug}:${entry.row.seq}`, event: ROW_EVENT, data: { ...entry.row, slug: entry.slug } };
}

/** The seq in a Last-Event-ID of this machine's stream (`12` or `<slug>:12`); undefined for anything else. */
export function seqOfEventId(id: string | undefined, slug: string): number | undefined {
  if (id === undefined) return undefined;
  const match = /^(?:([a-z0-9-]+):)?(\d{1,15})$/.exec(id.trim());
  if (!match || (match[1] !== undefined && match[1] !== slug)) return undefined;
  return Number(match[2]);
}
