import type { ChainRow } from './hash-chain.js';
import type { MachineActivity } from './machine-repository.js';
import { onceUnlessFailed } from '../../lib/once.js';
import type { ChainLogRepository } from './chain-log-repository.js';

export interface RingEntry {
  slug: string;
  row: ChainRow;
}

/**
 * The newest rows of public machines, node-wide, in memory: fed by `audit.appended` as rows are
 * written, and rebuilt on first use from the newest rows of each public machine (so a restart loses
 * nothing that still fits). Holds at most `capacity` rows; readers re-check visibility, because a
 * machine can turn private after its rows were taken in.
 */
export interface RecentRing {
  push(slug: string, row: ChainRow): void;
  /** Takes in the newest rows of a machine that just turned public (in the background). */
  backfill(slug: string): void;
  /** Every held row, newest first. */
  newestFirst(): Promise<RingEntry[]>;
}

const CAPACITY = 2000;
/** Rows read per public machine when rebuilding. */
const PER_MACHINE = 100;

const order = (a: RingEntry, b: RingEntry): number =>
  a.row.tick - b.row.tick || a.row.created_at.localeCompare(b.row.created_at) || a.slug.localeCompare(b.slug) || a.row.seq - b.row.seq;

export function createRecentRing(deps: {
  chainLog: ChainLogRepository;
  /** Every machine with rows, the one with the newest row first. */
  activeFirst: () => AsyncIterable<MachineActivity>;
  isPublic: (slug: string) => Promise<boolean>;
  capacity?: number;
}): RecentRing {
  const capacity = deps.capacity ?? CAPACITY;
  let entries: RingEntry[] = [];
  let keys = new Set<string>();
  // Built from the logs once; from then on kept by `push`.
  const build = onceUnlessFailed(async () => {
    const found: RingEntry[] = [];
    // Machines come newest row first: once `capacity` rows are in hand, a machine whose newest row
    // is older than all of them cannot add one, and neither can any after it.
    let floor = -Infinity;
    for await (const { slug, last_tick } of deps.activeFirst()) {
      if (last_tick < floor) break;
      if (!(await deps.isPublic(slug))) continue;
      found.push(...(await newestOf(slug)));
      if (found.length >= capacity) floor = found.map((e) => e.row.tick).sort((a, b) => b - a)[capacity - 1]!;
    }
    merge(found);
  });

  const keyOf = (e: RingEntry): string => `${e.slug}:${e.row.seq}`;

  function trim(): void {
    if (entries.length <= capacity) return;
    for (const dropped of entries.slice(0, entries.length - capacity)) keys.delete(keyOf(dropped));
    entries = entries.slice(entries.length - capacity);
  }

  /** Merges rows read from the logs with what the bus delivered meanwhile. */
  function merge(found: RingEntry[]): void {
    const all = [...entries];
    for (const e of found) if (!keys.has(keyOf(e))) all.push(e);
    all.sort(order);
    entries = all.slice(Math.max(0, all.length - capacity));
    keys = new Set(entries.map(keyOf));
  }

  async function newestOf(slug: string): Promise<RingEntry[]> {
    const rows = await deps.chainLog.read(slug, { reverse: true, limit: Math.min(PER_MACHINE, capacity) });
    return rows.map((row) => ({ slug, row }));
  }

  return {
    push(slug, row) {
      const entry = { slug, row };
      if (keys.has(keyOf(entry))) return;
      keys.add(keyOf(entry));
      entries.push(entry);
      // Trimming in halves keeps pushes O(1) amortized.
      if (entries.length > capacity * 1.5) trim();
    },

    backfill(slug) {
      newestOf(slug).then(merge, () => undefined);
    },

    async newestFirst() {
      await build();
      trim();
      return entries.slice().reverse();
    },
  };
}
