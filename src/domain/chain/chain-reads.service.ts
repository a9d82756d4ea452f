import { errors } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import { decodeCursor, encodeCursor } from '../../lib/cursor.js';
import { createChainSummaries, type SpanCount } from './chain-summary.js';
import type { ChainRow } from './hash-chain.js';
import type { MachineRecord } from './machine.js';
import type { KeyRepository } from '../identity/key-repository.js';
import type { ChainLogRepository } from './chain-log-repository.js';
import type { ContractRepository } from '../contracts/contract-repository.js';

/** Format version of the explore answer; `rows` stays its member for older clients. */
export const EXPLORE_VERSION = '2';
/** A source counts as alive when it wrote within this many ticks (about an hour). */
const ALIVE_TICKS = 4633;
/** Rows of one tick returned by `block` at most. */
const BLOCK_LIMIT = 1000;

export interface ChainReadsService {
  state(machine: MachineRecord): Promise<{
    status: MachineRecord['status'];
    tick: number;
    state_hash: string | null;
    state_tick: number | null;
    row_count: number;
    head_seq: number | null;
    head_tick: number | null;
    head_hash: string | null;
  }>;
  stats(machine: MachineRecord): Promise<{
    genesis_tick: number;
    row_count: number;
    first_tick: number | null;
    last_tick: number | null;
    rows_last_60_ticks: number;
    by_type: Record<string, number>;
    contracts: number;
  }>;
  coverage(machine: MachineRecord): Promise<Array<{ group: string; types: Array<SpanCount & { type: string }> }>>;
  sources(machine: MachineRecord): Promise<
    Array<{
      source_id: string;
      display_name: string;
      source_type: string;
      events_seen: number;
      events_stamped: number;
      alive: boolean;
      last_tick: number | null;
    }>
  >;
  awareness(machine: MachineRecord): Promise<Array<{ origin: string; rows: number; verified: number; broken: number; last_tick: number | null }>>;
  analytics(
    machine: MachineRecord,
    buckets: number,
    windowTicks: number,
  ): Promise<{ bucket_ticks: number; from_tick: number; to_tick: number; counts: number[] }>;
  /** Rows with from <= tick <= to, oldest first; a cursor continues inside a range larger than `limit`. */
  explore(
    machine: MachineRecord,
    q: { from?: number | undefined; to?: number | undefined; limit: number; cursor?: string | undefined },
  ): Promise<{
    version: string;
    from: number;
    to: number;
    rows: ChainRow[];
    truncated: boolean;
    next_from: number | null;
    next_cursor: string | null;
  }>;
  /** Rows stamped exactly at `tick`; NOT_FOUND with `details.code = NO_BLOCK_AT_TICK` when none. */
  block(machine: MachineRecord, tick: number): Promise<{ rows: ChainRow[]; state_hash: string; truncated: boolean }>;
  /** The chain as it stood at `tick`; NOT_FOUND with `details.code = NO_BLOCK_AT_TICK` before its first row. */
  at(machine: MachineRecord, tick: number): Promise<{ head: ChainRow; row_count: number; state_hash: string | null; state_tick: number | null }>;
}

/** Family of a row type: what comes before its first "." (`admin.granted` is in `admin`). */
export function groupOf(type: string): string {
  const dot = type.search(/[.:]/);
  return dot > 0 ? type.slice(0, dot) : type;
}

export function createChainReadsService(deps: {
  chainLog: ChainLogRepository;
  contractRecords: ContractRepository;
  keys: KeyRepository;
  clock: Clock;
  origin: string;
}): ChainReadsService {
  const { chainLog, contractRecords, clock, origin } = deps;
  const summaries = createChainSummaries(chainLog);

  /**
   * First seq whose tick is >= `tick`, or `count` when none: chain ticks never decrease, so counts over
   * tick ranges are differences of these, found by the store's index without reading the rows between.
   */
  async function seqAtTick(m: MachineRecord, tick: number, count: number): Promise<number> {
    const [row] = await chainLog.read(m.slug, { fromTick: tick, limit: 1 });
    return row === undefined ? count : Math.min(row.seq, count);
  }

  async function latestAtOrBefore(m: MachineRecord, tick: number, types?: string[]): Promise<ChainRow | undefined> {
    const [row] = await chainLog.read(m.slug, { toTick: tick, reverse: true, limit: 1, ...(types ? { types } : {}) });
    return row;
  }

  const noBlock = (m: MachineRecord, tick: number) =>
    errors.notFound(`No row of "${m.slug}" at tick ${tick}`, { code: 'NO_BLOCK_AT_TICK', slug: m.slug, tick });

  return {
    async state(m) {
      const [head, count, [state]] = await Promise.all([
        chainLog.head(m.slug),
        chainLog.count(m.slug),
        chainLog.read(m.slug, { types: ['state'], reverse: true, limit: 1 }),
      ]);
      return {
        status: m.status,
        tick: clock.tick(),
        state_hash: state?.payload_digest ?? null,
        state_tick: state?.tick ?? null,
        row_count: count,
        head_seq: head?.seq ?? null,
        head_tick: head?.tick ?? null,
        head_hash: head?.state_hash ?? null,
      };
    },

    async stats(m) {
      const summary = await summaries.of(m);
      const count = await chainLog.count(m.slug);
      const [first] = await chainLog.read(m.slug, { limit: 1 });
      const head = await chainLog.head(m.slug);
      const recent = count - (await seqAtTick(m, clock.tick() - 59, count));
      const byType = Object.fromEntries([...summary.byType].map(([type, s]) => [type, s.count]));
      // The contracts themselves, as the quota counts them: the audit rows say what was created, not what still runs.
      const contracts = (await contractRecords.bySlug(m.slug)).filter((c) => c.status !== 'killed').length;
      return {
        genesis_tick: m.genesis_tick,
        row_count: count,
        first_tick: first?.tick ?? null,
        last_tick: head?.tick ?? null,
        rows_last_60_ticks: recent,
        by_type: byType,
        contracts,
      };
    },

    async coverage(m) {
      const summary = await summaries.of(m);
      const groups = new Map<string, Array<SpanCount & { type: string }>>();
      for (const [type, span] of [...summary.byType].sort(([a], [b]) => a.localeCompare(b))) {
        const group = groupOf(type);
        if (!groups.has(group)) groups.set(group, []);
        groups.get(group)!.push({ type, ...span });
      }
      return [...groups].map(([group, types]) => ({ group, types }));
    },

    async sources(m) {
      const summary = await summaries.of(m);
      const keys = new Map((await deps.keys.byMachine(m.slug)).map((k) => [k.uid, k]));
      const now = clock.tick();
      return [...summary.bySource]
        .map(([uid, span]) => {
          const key = keys.get(uid);
          const type = uid === '' ? 'system' : key?.kind === 'developer' ? 'api_key' : uid.startsWith('contract') ? 'contract' : 'user';
          const name = uid === '' ? 'system' : key?.kind === 'developer' ? `API key "${key.name ?? key.key_id}"` : uid === m.owner_uid ? `${uid} (owner)` : uid;
          return {
            source_id: uid === '' ? 'system' : uid,
            display_name: name,
            source_type: type,
            events_seen: span.count,
            events_stamped: span.count,
            alive: now - span.last_tick <= ALIVE_TICKS,
            last_tick: span.last_tick,
          };
        })
        .sort((a, b) => b.events_stamped - a.events_stamped);
    },

    async awareness(m) {
      const s = await summaries.of(m);
      return [{ origin: `${origin}:${m.slug}`, rows: s.folded, verified: s.verified, broken: s.broken, last_tick: s.lastTick }];
    },

    async analytics(m, buckets, windowTicks) {
      const to = clock.tick();
      const from = Math.max(0, to - windowTicks + 1);
      const span = to - from + 1;
      const count = await chainLog.count(m.slug);
      const edges: number[] = [];
      for (let i = 0; i <= buckets; i++) edges.push(await seqAtTick(m, from + Math.floor((i * span) / buckets), count));
      const counts = edges.slice(1).map((edge, i) => edge - edges[i]!);
      return { bucket_ticks: span / buckets, from_tick: from, to_tick: to, counts };
    },

    async explore(m, q) {
      const from = q.from ?? m.genesis_tick;
      const to = q.to ?? clock.tick();
      if (to < from)
        throw errors.validation(`to (${to}) is before from (${from})`, { issues: [{ path: 'to', message: 'to must be >= from', code: 'custom' }] });
      const fromSeq = q.cursor === undefined ? undefined : decodeCursor('seq', q.cursor);
      const rows = await chainLog.read(m.slug, {
        fromTick: from,
        toTick: to,
        limit: q.limit + 1,
        ...(fromSeq !== undefined ? { fromSeq } : {}),
      });
      const page = rows.slice(0, q.limit);
      const next = rows.length > q.limit ? rows[q.limit]! : undefined;
      return {
        version: EXPLORE_VERSION,
        from,
        to,
        rows: page,
        truncated: next !== undefined,
        next_from: next?.tick ?? null,
        next_cursor: next ? encodeCursor('seq', next.seq) : null,
      };
    },

    async block(m, tick) {
      const rows = await chainLog.read(m.slug, { fromTick: tick, toTick: tick, limit: BLOCK_LIMIT + 1 });
      if (rows.length === 0) throw noBlock(m, tick);
      const truncated = rows.length > BLOCK_LIMIT;
      const last = truncated ? (await latestAtOrBefore(m, tick))! : rows[rows.length - 1]!;
      return { rows: rows.slice(0, BLOCK_LIMIT), state_hash: last.state_hash, truncated };
    },

    async at(m, tick) {
      const head = await latestAtOrBefore(m, tick);
      if (!head) throw noBlock(m, tick);
      const state = await latestAtOrBefore(m, tick, ['state']);
      return { head, row_count: head.seq + 1, state_hash: state?.payload_digest ?? null, state_tick: state?.tick ?? null };
    },
  };
}
