import { randomUUID } from 'node:crypto';
import { inCommitScope } from '../../lib/commit-scope.js';
import type { Json, PubSub } from '../../storage/port.js';
import { createRelayPositions } from '../chain/relay-positions.js';
import type { ContractHub } from './contract-hub.js';
import type { ContractRepository } from './contract-repository.js';
import type { EventRecord, TransitionRecord } from './contract.types.js';
import type { ContractEventRepository } from './contract-event-repository.js';

/** The channel processes sharing a store announce the contract rows they appended on. */
export const CONTRACT_ROWS_CHANNEL = 'contracts.rows';
/** Ranges per message: PostgreSQL refuses NOTIFY payloads of 8000 bytes or more. */
const MAX_PER_MESSAGE = 60;
/** Most rows read back for one announcement or one page of a catch-up. */
const PAGE = 500;

type Log = 'events' | 'transitions';
/** A machine's log (`e` events, `t` transitions), the last and first seq appended in one event-loop turn. */
type Range = [log: 'e' | 't', slug: string, last: number, first: number];

/**
 * Carries contract rows between the processes sharing a store, as `append-relay.ts` does chain rows: the
 * returned hub announces what this process publishes (per machine and log, the seq range of one turn); a
 * receiving process with a live stream of that machine reads the rows back from the log and publishes
 * them on its own hub. Per machine and log, the rows published here are tracked (`relay-positions.ts`),
 * so a row reaches the hub once, an announcement after a lost one fills the gap from the log, and after
 * the messaging connection came back (`PubSub.onResume`) every machine streamed here is read from its
 * position: rows appended elsewhere during the outage reach the streams.
 */
export function createContractRowsRelay(deps: {
  contractEvents: ContractEventRepository;
  contractRecords: ContractRepository;
  pubsub: PubSub;
  hub: ContractHub;
  onError: (err: unknown) => void;
}) {
  const { contractEvents, contractRecords, pubsub, hub: local } = deps;
  const origin = randomUUID();
  const positions = createRelayPositions();
  const key = (log: Log, slug: string) => `${log === 'events' ? 'e' : 't'}:${slug}`;
  let pending = new Map<string, Range>();
  let flushing: NodeJS.Immediate | undefined;
  const queues = new Map<string, Promise<unknown>>();
  let stopped = false;

  local.onStarted((log, slug, seq) => positions.startAt(key(log, slug), seq));

  function flush(): void {
    flushing = undefined;
    const batch = [...pending.values()];
    pending = new Map();
    for (let i = 0; i < batch.length; i += MAX_PER_MESSAGE) {
      pubsub.publish(CONTRACT_ROWS_CHANNEL, { o: origin, r: batch.slice(i, i + MAX_PER_MESSAGE) as unknown as Json });
    }
  }

  function announce(log: Log, slug: string, seq: number): void {
    const k = key(log, slug);
    positions.mark(k, seq);
    // Inside a lock's transaction the message is sent with its COMMIT: now, it costs no round trip of its own.
    if (inCommitScope()) return pubsub.publish(CONTRACT_ROWS_CHANNEL, { o: origin, r: [[log === 'events' ? 'e' : 't', slug, seq, seq]] });
    pending.set(k, [log === 'events' ? 'e' : 't', slug, seq, pending.get(k)?.[3] ?? seq]);
    flushing ??= setImmediate(flush);
  }

  function queued<T>(k: string, work: () => Promise<T>): Promise<T> {
    const next = (queues.get(k) ?? Promise.resolve()).then(work);
    const settled = next.catch(() => undefined);
    queues.set(k, settled);
    void settled.then(() => {
      if (queues.get(k) === settled) queues.delete(k);
    });
    return next;
  }

  /** A page of the machine's log from `fromSeq` (to `toSeq`): published here unless it was already; whether it was the last. */
  async function publish(log: Log, slug: string, fromSeq: number, toSeq?: number): Promise<{ published: number; last: boolean }> {
    const query = { fromSeq, limit: PAGE, ...(toSeq !== undefined ? { toSeq } : {}) };
    const rows: Array<EventRecord | TransitionRecord> =
      log === 'events' ? await contractEvents.events(slug, query) : await contractRecords.machineTransitions(slug, query);
    const k = key(log, slug);
    let n = 0;
    for (const row of rows) {
      if (stopped || positions.emitted(k, row.seq)) continue;
      positions.mark(k, row.seq);
      if (log === 'events') local.publishEvent(slug, row as EventRecord);
      else local.publishTransition(row as TransitionRecord, slug);
      n += 1;
    }
    const last = rows.at(-1);
    if (last !== undefined) positions.advance(k, last.seq);
    return { published: n, last: rows.length < PAGE };
  }

  const listening = (log: Log, slug: string) => local.listened()[log].includes(slug);

  async function relay([tag, slug, last, first]: Range): Promise<void> {
    const log: Log = tag === 'e' ? 'events' : 'transitions';
    const k = key(log, slug);
    const position = positions.get(k);
    if (position !== undefined && position >= last) return;
    // No stream here: nothing to read; a stream opened later reads its own start from the log.
    if (!listening(log, slug)) return positions.advance(k, last);
    // The position moves only over rows read (in `publish`): an announced row not readable yet is read
    // with the next announcement or the next resume, never skipped.
    await publish(log, slug, Math.max(position === undefined ? first : position + 1, last - PAGE + 1), last);
  }

  /** After a resume: each streamed machine's log from its position to its end; the rows published. */
  async function catchUp(log: Log, slug: string): Promise<number> {
    let total = 0;
    for (;;) {
      const position = positions.get(key(log, slug));
      if (position === undefined || stopped) return total;
      const page = await publish(log, slug, position + 1);
      total += page.published;
      if (page.last) return total;
    }
  }

  const offRemote = pubsub.subscribe(CONTRACT_ROWS_CHANNEL, (message) => {
    const { o, r } = (message ?? {}) as { o?: unknown; r?: unknown };
    if (o === origin || !Array.isArray(r)) return;
    for (const range of r as Range[]) {
      if ((range[0] !== 'e' && range[0] !== 't') || typeof range[1] !== 'string' || typeof range[2] !== 'number') continue;
      queued(`${range[0]}:${range[1]}`, () => relay(range)).catch(deps.onError);
    }
  });

  let resuming: Promise<unknown> = Promise.resolve();
  const offResume = pubsub.onResume(() => {
    const { events: e, transitions: t } = local.listened();
    const work = [...e.map((slug) => ['events', slug] as const), ...t.map((slug) => ['transitions', slug] as const)];
    resuming = resuming.then(() => Promise.all(work.map(([log, slug]) => queued(key(log, slug), () => catchUp(log, slug)).catch(deps.onError))));
  });

  const hub: ContractHub = {
    ...local,
    publishTransition(row, slug) {
      local.publishTransition(row, slug);
      announce('transitions', slug, row.seq);
    },
    publishEvent(slug, row) {
      local.publishEvent(slug, row);
      announce('events', slug, row.seq);
    },
  };

  return {
    /** The hub to publish through: rows published on it are announced to the other processes. */
    hub,
    async stop(): Promise<void> {
      stopped = true;
      offRemote();
      offResume();
      if (flushing !== undefined) clearImmediate(flushing);
      await resuming;
      await Promise.allSettled([...queues.values()]);
    },
  };
}
