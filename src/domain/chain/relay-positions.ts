/** Machines whose position is remembered; the least recently moved is forgotten first. */
const MAX_TRACKED = 10_000;
/** Seqs held above a machine's watermark before the oldest is forgotten (it may then be emitted twice, never lost). */
const MAX_AHEAD = 1000;

/**
 * Per machine, how far this process's bus has carried its rows: a watermark (every row at or below it
 * was emitted here, appended locally or relayed) and the seqs emitted above it (local appends that went
 * out before the other processes' rows between them were relayed). The append relay reads a machine's
 * rows from the store after its watermark, emits only those not yet emitted, then moves the watermark:
 * that is what makes a relayed row reach subscribers exactly once, whether it was announced, found in a
 * gap of the announcements, or caught up after the messaging connection came back.
 */
export interface RelayPositions {
  /** The machine's watermark; undefined when it is not tracked (nothing emitted here since it was forgotten). */
  get(slug: string): number | undefined;
  /** Whether the row `seq` of the machine was emitted here already. */
  emitted(slug: string, seq: number): boolean;
  /** Records that the row `seq` was emitted here (an untracked machine starts at it). */
  mark(slug: string, seq: number): void;
  /** Every row at or below `seq` is accounted for (emitted, or read from the store and emitted now). */
  advance(slug: string, seq: number): void;
  /** Starts tracking at `seq` (a stream here starts after it); a tracked machine keeps its position. */
  startAt(slug: string, seq: number): void;
  /** Tracked machines, least recently moved first. */
  tracked(): string[];
}

interface Position {
  watermark: number;
  ahead: Set<number>;
}

export function createRelayPositions(limits: { maxTracked?: number; maxAhead?: number } = {}): RelayPositions {
  const maxTracked = limits.maxTracked ?? MAX_TRACKED;
  const maxAhead = limits.maxAhead ?? MAX_AHEAD;
  const positions = new Map<string, Position>();

  /** The position, moved to the most recently used end (Map order). */
  function touch(slug: string, start: number): Position {
    let p = positions.get(slug);
    if (p) positions.delete(slug);
    else p = { watermark: start, ahead: new Set() };
    positions.set(slug, p);
    if (positions.size > maxTracked) positions.delete(positions.keys().next().value!);
    return p;
  }

  /** Pulls seqs held above the watermark into it once they are contiguous with it. */
  function settle(p: Position): void {
    while (p.ahead.delete(p.watermark + 1)) p.watermark += 1;
    for (const seq of p.ahead) if (seq <= p.watermark) p.ahead.delete(seq);
  }

  return {
    get: (slug) => positions.get(slug)?.watermark,
    emitted(slug, seq) {
      const p = positions.get(slug);
      return p !== undefined && (seq <= p.watermark || p.ahead.has(seq));
    },
    mark(slug, seq) {
      const p = touch(slug, seq);
      if (seq <= p.watermark) return;
      p.ahead.add(seq);
      settle(p);
      if (p.ahead.size > maxAhead) p.ahead.delete(Math.min(...p.ahead));
    },
    advance(slug, seq) {
      const p = touch(slug, seq);
      if (seq > p.watermark) p.watermark = seq;
      settle(p);
    },
    startAt(slug, seq) {
      if (!positions.has(slug)) touch(slug, seq);
    },
    tracked: () => [...positions.keys()],
  };
}
