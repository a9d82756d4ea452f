import { randomUUID } from 'node:crypto';
import type { EventBus } from '../events.js';
import type { Json, PubSub } from '../../storage/port.js';
import type { ChainRow } from './hash-chain.js';
import { createRelayPositions } from './relay-positions.js';
import type { StreamInterest } from './stream-interest.js';
import type { ChainLogRepository } from './chain-log-repository.js';
import type { MachineRepository } from './machine-repository.js';

/** The store channel chain appends are announced on. */
export const APPENDED_CHANNEL = 'chain.appended';
/** Most announcements per message (PostgreSQL caps a NOTIFY payload under 8,000 bytes). */
const MAX_PER_MESSAGE = 40;
/** Most rows read back for one announcement: a subscriber further behind catches up from the log itself. */
const MAX_CATCH_UP = 1000;
/** Rows read per page when catching a machine up after the messaging connection came back. */
const RESUME_PAGE = 500;
/** Machines caught up at once after a resume (pooled reads in parallel, not one per machine in a row). */
const RESUME_PARALLEL = 20;
/** The row type that changes a machine's visibility (see `machine-settings.service.ts`). */
const SETTINGS_ROW = 'machine.settings_changed';

/** Per machine: its last seq of one event-loop turn, visibility, and first seq of that turn. */
type Announcement = [slug: string, seq: number, isPublic: boolean, firstSeq?: number];

/** What a catch-up after the messaging connection came back did. */
export interface ResumeReport {
  /** Machines looked at: those live streams here deliver. */
  watched: number;
  /** Machines that had rows this process had not heard of. */
  streams: number;
  /** Rows read from the store and emitted here. */
  rows: number;
}

export interface AppendRelay {
  /** Stops relaying, then waits for rows being read back, so nothing reads the store after it resolves. */
  stop(): Promise<void>;
}

/**
 * Carries `audit.appended` between the processes sharing a store, so an SSE subscriber on one process
 * sees rows appended through another. Appends of one event-loop turn become one message (per machine:
 * its first and last seq and visibility); a receiving process reads the announced rows back from the log
 * and emits them on its own bus flagged `remote` (event routing ignores those: the appending process did it).
 *
 * Messages are best effort (NOTIFY does not queue for a dropped listener), so delivery never rests on
 * them: per machine, the rows this bus carried are tracked (`relay-positions.ts`) and every read starts
 * after that watermark, so an announcement that jumps past a lost one fills the gap from the log, and a
 * row is emitted once whichever way it was found. When the messaging connection comes back
 * (`PubSub.onResume`), every machine a live stream here delivers (`StreamInterest`) is read from its
 * watermark to its head: rows appended elsewhere during the outage reach the subscribers, in order.
 */
export function createAppendRelay(deps: {
  chainLog: ChainLogRepository;
  machineRecords: MachineRepository;
  pubsub: PubSub;
  bus: EventBus;
  onError: (err: unknown) => void;
  /** The machines live streams here deliver; without it a resume catches up nothing. */
  interest?: StreamInterest;
  /** Told after each catch-up that followed a resume. */
  onResumed?: (report: ResumeReport) => void;
}): AppendRelay {
  const { chainLog, machineRecords, pubsub, bus } = deps;
  const origin = randomUUID();
  const positions = createRelayPositions();
  let pending = new Map<string, Announcement>();
  let flushing: NodeJS.Immediate | undefined;
  const queues = new Map<string, Promise<unknown>>();
  let stopped = false;

  deps.interest?.onWatch((slug, afterSeq) => positions.startAt(slug, afterSeq));

  function flush(): void {
    flushing = undefined;
    const batch = [...pending.values()];
    pending = new Map();
    for (let i = 0; i < batch.length; i += MAX_PER_MESSAGE) {
      pubsub.publish(APPENDED_CHANNEL, { o: origin, a: batch.slice(i, i + MAX_PER_MESSAGE) as unknown as Json });
    }
  }

  const offLocal = bus.on('audit.appended', ({ slug, isPublic, row, remote }) => {
    if (remote) return;
    const seq = Number(row['seq']);
    positions.mark(slug, seq);
    pending.set(slug, [slug, seq, isPublic, pending.get(slug)?.[3] ?? seq]);
    flushing ??= setImmediate(flush);
  });

  /** Runs `work` after the machine's earlier reads: rows reach subscribers in seq order. */
  function queued<T>(slug: string, work: () => Promise<T>): Promise<T> {
    const next = (queues.get(slug) ?? Promise.resolve()).then(work);
    const settled = next.catch(() => undefined);
    queues.set(slug, settled);
    void settled.then(() => {
      if (queues.get(slug) === settled) queues.delete(slug);
    });
    return next;
  }

  /** Emits the rows not emitted here yet, in order; `isPublic` undefined: the machine's visibility now. */
  async function emit(slug: string, rows: ChainRow[], isPublic: boolean | undefined): Promise<number> {
    const fresh = rows.filter((row) => !positions.emitted(slug, row.seq));
    if (fresh.length === 0 || stopped) return 0;
    let visibleNow = isPublic;
    // Read back after an outage, a row's visibility at its append is unknown: rows up to the last
    // visibility change among them go out as private (never shown on a public feed they may not have
    // belonged to; a public-only stream ends there and is re-opened), the rest as the machine is now.
    let lastChange = -1;
    if (visibleNow === undefined) {
      visibleNow = (await machineRecords.get(slug))?.is_public === true;
      lastChange = fresh.findLastIndex((row) => row.type === SETTINGS_ROW);
    }
    let n = 0;
    for (const [i, row] of fresh.entries()) {
      if (stopped || positions.emitted(slug, row.seq)) continue;
      positions.mark(slug, row.seq);
      bus.emit('audit.appended', { slug, isPublic: i <= lastChange ? false : visibleNow, row, remote: true });
      n += 1;
    }
    return n;
  }

  /** An announcement: the rows after this process's watermark up to the announced seq. */
  async function relay([slug, seq, isPublic, firstSeq]: Announcement): Promise<void> {
    const watermark = positions.get(slug);
    if (watermark !== undefined && watermark >= seq) return;
    const from = Math.max(watermark === undefined ? (firstSeq ?? seq) : watermark + 1, seq - MAX_CATCH_UP + 1);
    const rows = await chainLog.read(slug, { fromSeq: from, toSeq: seq });
    await emit(slug, rows, isPublic);
    // Only over rows read: an announced row not readable yet is read with the next announcement or the
    // next resume, never skipped.
    const last = rows.at(-1);
    if (last !== undefined) positions.advance(slug, last.seq);
  }

  /** After a resume: every row past the machine's watermark, page by page; the number emitted. */
  async function catchUp(slug: string): Promise<number> {
    let n = 0;
    for (;;) {
      const watermark = positions.get(slug);
      if (watermark === undefined || stopped) return n;
      const rows = await chainLog.read(slug, { fromSeq: watermark + 1, limit: RESUME_PAGE });
      n += await emit(slug, rows, undefined);
      const last = rows.at(-1);
      if (last === undefined) return n;
      positions.advance(slug, last.seq);
      if (rows.length < RESUME_PAGE) return n;
    }
  }

  async function resume(): Promise<void> {
    const { slugs, all } = deps.interest?.watched() ?? { slugs: [], all: false };
    // The aggregate feed delivers every public machine: every machine this process tracks is caught up.
    const watched = [...new Set(all ? [...slugs, ...positions.tracked()] : slugs)];
    const report: ResumeReport = { watched: watched.length, streams: 0, rows: 0 };
    for (let i = 0; i < watched.length && !stopped; i += RESUME_PARALLEL) {
      await Promise.all(
        watched.slice(i, i + RESUME_PARALLEL).map(async (slug) => {
          try {
            const n = await queued(slug, () => catchUp(slug));
            if (n > 0) report.streams += 1;
            report.rows += n;
          } catch (err) {
            deps.onError(err);
          }
        }),
      );
    }
    if (!stopped) deps.onResumed?.(report);
  }

  const offRemote = pubsub.subscribe(APPENDED_CHANNEL, (message) => {
    const { o, a } = (message ?? {}) as { o?: unknown; a?: unknown };
    if (o === origin || !Array.isArray(a)) return;
    for (const item of a as Announcement[]) {
      if (typeof item[0] !== 'string' || typeof item[1] !== 'number') continue;
      queued(item[0], () => relay(item)).catch(deps.onError);
    }
  });

  let resuming: Promise<void> | undefined;
  const offResume = pubsub.onResume(() => {
    resuming = (resuming ?? Promise.resolve()).then(resume).catch(deps.onError);
  });

  return {
    async stop() {
      stopped = true;
      offLocal();
      offRemote();
      offResume();
      if (flushing !== undefined) clearImmediate(flushing);
      flushing = undefined;
      await resuming;
      await Promise.allSettled([...queues.values()]);
    },
  };
}
