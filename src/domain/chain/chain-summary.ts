import { genesisSeed, stateHashOf } from './hash-chain.js';
import type { MachineRecord } from './machine.js';
import type { ChainLogRepository } from './chain-log-repository.js';

export interface SpanCount {
  count: number;
  first_tick: number;
  last_tick: number;
}

/** Aggregates of one machine's chain, folded over its rows once and then only over new ones. */
export interface ChainSummary {
  /** Rows folded so far (the next seq to fold). */
  folded: number;
  byType: Map<string, SpanCount>;
  /** Per actor uid; the empty string stands for rows without an actor (system rows). */
  bySource: Map<string, SpanCount>;
  /** Rows whose hash link and own hash checked out when folded, and rows where they did not. */
  verified: number;
  broken: number;
  lastTick: number | null;
  /** state_hash of the last folded row, to check the next row's link. */
  lastHash: string | undefined;
}

const PAGE = 5000;
/** Machines whose summaries stay in memory; the least recently used is dropped beyond this. */
const MAX_CACHED = 256;

/**
 * Per-machine summaries for the stats, coverage, sources and awareness reads. The first read of a
 * machine folds its whole chain page by page (seconds at a million rows); later reads fold only the
 * rows appended since, so each costs about the new rows. Memory is a few maps per cached machine.
 */
export interface ChainSummaries {
  of(machine: MachineRecord): Promise<ChainSummary>;
}

function bump(map: Map<string, SpanCount>, key: string, tick: number): void {
  const seen = map.get(key);
  if (seen) {
    seen.count++;
    seen.last_tick = tick;
  } else map.set(key, { count: 1, first_tick: tick, last_tick: tick });
}

export function createChainSummaries(chainLog: ChainLogRepository): ChainSummaries {
  const cache = new Map<string, ChainSummary>();
  const folding = new Map<string, Promise<ChainSummary>>();

  async function fold(machine: MachineRecord, summary: ChainSummary): Promise<ChainSummary> {
    const total = await chainLog.count(machine.slug);
    while (summary.folded < total) {
      const rows = await chainLog.read(machine.slug, { fromSeq: summary.folded, toSeq: total - 1, limit: PAGE });
      if (rows.length === 0) break;
      for (const row of rows) {
        const { state_hash, ...rest } = row;
        const expectedPrev = summary.lastHash ?? genesisSeed(machine.slug, machine.genesis_tick);
        if (row.prev_hash === expectedPrev && stateHashOf(rest) === state_hash) summary.verified++;
        else summary.broken++;
        summary.lastHash = state_hash;
        bump(summary.byType, row.type, row.tick);
        bump(summary.bySource, row.actor_uid ?? '', row.tick);
        summary.lastTick = row.tick;
        summary.folded = row.seq + 1;
      }
    }
    return summary;
  }

  return {
    of(machine) {
      const key = `${machine.slug}|${machine.genesis_tick}`;
      const running = folding.get(key);
      if (running) return running;
      const summary = cache.get(key) ?? {
        folded: 0,
        byType: new Map(),
        bySource: new Map(),
        verified: 0,
        broken: 0,
        lastTick: null,
        lastHash: undefined,
      };
      cache.delete(key);
      cache.set(key, summary);
      if (cache.size > MAX_CACHED) cache.delete(cache.keys().next().value!);
      const work = fold(machine, summary).finally(() => folding.delete(key));
      folding.set(key, work);
      return work;
    },
  };
}
